import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../testing/index.ts';
import { stagePlatformWithNock } from '../../test/nock-platform.ts';
import type { TokenProvider } from './api-token-provider.ts';
import { AppKeyResolver } from './app-key-resolver.ts';
import { createHttpClient } from '../http/client.ts';

const api = 'http://127.0.0.1:4997';

function tokenProvider(): TokenProvider & { invalidated: number } {
  return {
    invalidated: 0,
    getToken: () => Promise.resolve('app-token'),
    invalidate() {
      this.invalidated += 1;
    },
  };
}

function resolver(clock = manualClock(), tokens = tokenProvider()) {
  return new AppKeyResolver({ apiBaseUrl: api, tokenProvider: tokens, httpClient: createHttpClient({ timeoutMs: 1_000 }), clock });
}

stagePlatformWithNock();

describe('AppKeyResolver', () => {
  it("returns the app's key, asking with the app token, and keeps it", async () => {
    const keys = resolver();
    nock(api).get('/api/apps/me').matchHeader('authorization', 'Bearer app-token').once().reply(200, { appKey: 'webhook-tools' });
    expect(await keys.resolve()).toBe('webhook-tools');
    expect(await keys.resolve()).toBe('webhook-tools');
    expect(nock.isDone()).toBe(true);
  });

  it('keeps a known key for good: a key does not change for a client', async () => {
    const clock = manualClock();
    const keys = resolver(clock);
    nock(api).get('/api/apps/me').once().reply(200, { appKey: 'webhook-tools' });
    expect(await keys.resolve()).toBe('webhook-tools');
    clock.advance(400 * 24 * 3_600_000);
    expect(await keys.resolve()).toBe('webhook-tools');
    expect(nock.isDone()).toBe(true);
  });

  it('returns null for a client linked to no app and does not retry harder', async () => {
    const clock = manualClock();
    const keys = resolver(clock);
    nock(api).get('/api/apps/me').once().reply(200, { appKey: null });
    expect(await keys.resolve()).toBeNull();
    clock.advance(299_000);
    expect(await keys.resolve()).toBeNull();
    expect(nock.isDone()).toBe(true);
    // After the recheck interval an administrator's fix is picked up.
    nock(api).get('/api/apps/me').reply(200, { appKey: 'webhook-tools' });
    clock.advance(1_000);
    expect(await keys.resolve()).toBe('webhook-tools');
  });

  it('throws on 5xx and asks again next time', async () => {
    const keys = resolver();
    nock(api).get('/api/apps/me').reply(503);
    await expect(keys.resolve()).rejects.toMatchObject({ code: 'PLATFORM_UNAVAILABLE' });
    nock(api).get('/api/apps/me').reply(200, { appKey: 'webhook-tools' });
    expect(await keys.resolve()).toBe('webhook-tools');
  });

  it('shares one failed request among concurrent callers, and asks again after it', async () => {
    const keys = resolver();
    const failed = nock(api).get('/api/apps/me').once().reply(503);
    const results = await Promise.allSettled([keys.resolve(), keys.resolve(), keys.resolve()]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(failed.isDone()).toBe(true);
    nock(api).get('/api/apps/me').reply(200, { appKey: 'webhook-tools' });
    expect(await keys.resolve()).toBe('webhook-tools');
  });

  it('drops the app token when the platform refuses it', async () => {
    const tokens = tokenProvider();
    const keys = resolver(manualClock(), tokens);
    nock(api).get('/api/apps/me').reply(401);
    await expect(keys.resolve()).rejects.toMatchObject({ code: 'APP_TOKEN_REJECTED' });
    expect(tokens.invalidated).toBe(1);
  });

  it('refuses an answer of another shape', async () => {
    nock(api).get('/api/apps/me').reply(200, { key: 'x' });
    await expect(resolver().resolve()).rejects.toMatchObject({ code: 'PLATFORM_BAD_RESPONSE' });
  });

  it('shares one request among concurrent callers', async () => {
    const keys = resolver();
    nock(api).get('/api/apps/me').once().reply(200, { appKey: 'webhook-tools' });
    expect(await Promise.all([keys.resolve(), keys.resolve(), keys.resolve()])).toEqual(['webhook-tools', 'webhook-tools', 'webhook-tools']);
  });
});
