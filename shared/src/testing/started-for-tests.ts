// A part a test file needs for all its tests (a platform, a server): started before the first test,
// closed after the last, and read through the function returned, so no file repeats the hooks.
import { afterAll, beforeAll } from 'vitest';

export function startedForTests<T extends { close(): Promise<void> }>(start: () => Promise<T>): () => T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    await started?.close();
  });
  return () => {
    if (started === undefined) throw new Error('startedForTests: read only inside tests and their hooks, once it has started');
    return started;
  };
}
