// Staging the platform's answers with nock. Importing nock patches Node's HTTP client for the whole
// process, so this lives apart from the testing export and only unit tests that stage failures import it.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

/**
 * Within the calling test file: no real connection unless a test allows one, and no staged answer
 * outlives its test. nock is on for the file alone: the unit files after it in the same process
 * (vitest.config.ts) get Node's sockets and fetch back unpatched.
 */
export function stagePlatformWithNock(): void {
  beforeAll(() => {
    // On from its import, or off since an earlier file in this process turned it off.
    if (!nock.isActive()) nock.activate();
  });
  beforeEach(() => {
    nock.disableNetConnect();
  });
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
  afterAll(() => {
    nock.restore();
  });
}
