// Staging the platform's answers with nock. Importing nock patches Node's HTTP client for the whole
// process, so this lives apart from the testing export and only unit tests that stage failures import it.
import nock from 'nock';
import { afterEach, beforeEach } from 'vitest';

/** Within the calling test file: no real connection unless a test allows one, and no staged answer outlives its test. */
export function stagePlatformWithNock(): void {
  beforeEach(() => {
    nock.disableNetConnect();
  });
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
}
