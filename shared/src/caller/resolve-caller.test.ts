import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { closedPort, listen, platformFailure } from '../testing/index.ts';
import { stagePlatformWithNock } from '../../test/nock-platform.ts';
import { CachedTokenResolver } from './cached-token-resolver.ts';
import { createHttpClient } from '../http/client.ts';
import { fetchCaller, resolveCaller } from './resolve-caller.ts';

const api = 'http://127.0.0.1:4999';
const httpClient = createHttpClient({ timeoutMs: 5_000 });
// For the platform that does not answer in time: a short limit, which an answer staged by nock
// can miss on a loaded machine (the first request of a file is the slowest).
const hastyClient = createHttpClient({ timeoutMs: 200 });
const me = {
  id: 'user-42',
  audience: [api],
  companies: [
    { id: 1, name: 'Acme', isOwner: false, roles: [], permissions: ['device-overview:view', 'webhook-tools:run'] },
    { id: 2, name: 'Beta', isOwner: false, roles: [], permissions: [] },
  ],
};

stagePlatformWithNock();

describe('resolveCaller', () => {
  it('returns the person and their companies with permission sets, asking with the token as bearer', async () => {
    nock(api).get('/api/me').matchHeader('authorization', 'Bearer tok-1').reply(200, me);
    const caller = await resolveCaller('tok-1', httpClient, api);
    expect(caller?.id).toBe('user-42');
    expect(caller?.companies.map((c) => c.id)).toEqual([1, 2]);
    expect(caller?.companies[0]?.permissions.has('device-overview:view')).toBe(true);
    expect(caller?.companies[1]?.permissions.size).toBe(0);
  });

  it('forwards an ApiToken credential with its own scheme', async () => {
    nock(api).get('/api/me').matchHeader('authorization', 'ApiToken user-api-token').reply(200, me);
    expect((await fetchCaller('user-api-token', httpClient, api, 'ApiToken'))?.id).toBe('user-42');
  });

  it('returns an empty company list for a valid token with no companies', async () => {
    nock(api)
      .get('/api/me')
      .reply(200, { id: 'user-7', audience: [api], companies: [] });
    const caller = await resolveCaller('tok-1', httpClient, api);
    expect(caller).not.toBeNull();
    expect(caller?.companies).toEqual([]);
  });

  it.each([401, 403])('returns null when the platform refuses the token with %i', async (status) => {
    nock(api).get('/api/me').reply(status, { error: 'invalid_token' });
    expect(await resolveCaller('tok-1', httpClient, api)).toBeNull();
  });

  it.each([500, 502, 503, 429])('raises PLATFORM_UNAVAILABLE on %i, not an invalid token', async (status) => {
    nock(api).get('/api/me').reply(status, 'upstream trouble');
    const error = await platformFailure(resolveCaller('tok-1', httpClient, api));
    expect(error.code).toBe('PLATFORM_UNAVAILABLE');
  });

  it('raises PLATFORM_UNAVAILABLE when the platform does not answer in time', async () => {
    nock.enableNetConnect('127.0.0.1');
    const silent = await listen(() => undefined);
    try {
      const error = await platformFailure(resolveCaller('tok-1', hastyClient, silent.url));
      expect(error.code).toBe('PLATFORM_UNAVAILABLE');
      expect(error.message).toContain('200 ms');
    } finally {
      await silent.close();
    }
  });

  it('raises PLATFORM_UNAVAILABLE when the body stalls after the headers', async () => {
    nock.enableNetConnect('127.0.0.1');
    const stalling = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
    });
    try {
      const error = await platformFailure(resolveCaller('tok-1', hastyClient, stalling.url));
      expect(error.code).toBe('PLATFORM_UNAVAILABLE');
    } finally {
      await stalling.close();
    }
  });

  it('raises PLATFORM_UNAVAILABLE when the connection is refused', async () => {
    nock.enableNetConnect('127.0.0.1');
    const base = `http://127.0.0.1:${await closedPort()}`;
    const error = await platformFailure(resolveCaller('tok-1', httpClient, base));
    expect(error.code).toBe('PLATFORM_UNAVAILABLE');
  });

  it.each([
    ['a body that is not JSON', 'not json'],
    ['a body of another shape', { user: 'x' }],
  ])('raises PLATFORM_BAD_RESPONSE on %s', async (_case, body) => {
    nock(api).get('/api/me').reply(200, body);
    const error = await platformFailure(resolveCaller('tok-1', httpClient, api));
    expect(error.code).toBe('PLATFORM_BAD_RESPONSE');
  });

  it('does not follow a redirect with the token', async () => {
    nock(api).get('/api/me').reply(302, '', { location: 'http://elsewhere.example/steal' });
    await expect(resolveCaller('tok-1', httpClient, api)).rejects.toThrow();
  });

  it('skips the platform on a cache hit and checks again after a refusal', async () => {
    const cache = new CachedTokenResolver<NonNullable<Awaited<ReturnType<typeof resolveCaller>>>>({ scope: api, ttlSeconds: 60 });
    const scope = nock(api).get('/api/me').once().reply(200, me);
    await resolveCaller('tok-1', httpClient, api, cache, 60);
    const again = await resolveCaller('tok-1', httpClient, api, cache, 60);
    expect(again?.id).toBe('user-42');
    expect(scope.isDone()).toBe(true);

    nock(api).get('/api/me').twice().reply(401);
    expect(await resolveCaller('tok-2', httpClient, api, cache, 60)).toBeNull();
    expect(await resolveCaller('tok-2', httpClient, api, cache, 60)).toBeNull();
    expect(nock.isDone()).toBe(true);
  });
});
