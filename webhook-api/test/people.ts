// The dev platform's seeded people as clients of a test's webhook API, signed in once for a block of
// tests, and what a test makes as one of them, removed after it.
import { afterEach, beforeAll } from 'vitest';
import type { ApiClient, RunningApi } from './harness.ts';

/**
 * The seed's people as clients of `api()`, signed in before the block's tests: oscar manages company
 * 1's webhooks, vera views them, bjorn is of another company.
 */
export function peopleForTests(api: () => RunningApi): Record<'oscar' | 'vera' | 'bjorn', ApiClient> {
  const signedIn = new Map<string, Promise<ApiClient>>();
  beforeAll(async () => {
    for (const name of ['oscar', 'vera', 'bjorn']) signedIn.set(name, api().clientAs(name));
    await Promise.all(signedIn.values());
  });
  const as =
    (name: string): ApiClient =>
    async (...request) => {
      const client = await signedIn.get(name);
      if (!client) throw new Error('peopleForTests: used only inside tests and their hooks, once signed in');
      return client(...request);
    };
  return { oscar: as('oscar'), vera: as('vera'), bjorn: as('bjorn') };
}

/** Where a test lists the configurations it makes: `as` deletes each after the test, so no test routes or retries into another's. */
export function deletedAfterEach(as: ApiClient): string[] {
  const made: string[] = [];
  afterEach(async () => {
    for (const id of made.splice(0)) await as('DELETE', `/v2/webhooks/${id}`);
  });
  return made;
}
