// A part a test file needs (a platform, a server): started before the file's tests, or before each
// test when each needs a fresh one, closed after them, and read through the function returned, so
// no file repeats the hooks.
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

/** A part a test starts: anything it can close. */
export interface StartedPart {
  /** Stops the part. */
  close(): Promise<void>;
}

/** Whether a part is started once per file or once per test. */
export interface StartedForTestsOptions {
  /** `file` (default): one for all the file's tests; `test`: a fresh one for each test. */
  readonly per?: 'file' | 'test';
}

/**
 * A part started before a file's tests (or each test) and closed after them, read through the function returned (Vitest's hooks).
 *
 * @example
 * ```ts
 * const platform = startedForTests(startPlatformFixture);
 * it('...', () => { platform().stage('token', caller); });
 * ```
 */
export function startedForTests<T extends StartedPart>(start: () => Promise<T>, options: StartedForTestsOptions = {}): () => T {
  let started: T | undefined;
  const [before, after] = options.per === 'test' ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => {
    started = await start();
  });
  after(async () => {
    await started?.close();
    started = undefined;
  });
  return () => {
    if (started === undefined) throw new Error('startedForTests: read only inside tests and their hooks, once it has started');
    return started;
  };
}
