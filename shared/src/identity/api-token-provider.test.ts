import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { closedPort, discoveryDocument, manualClock, platformFailure } from '../testing/index.ts';
import { stagePlatformWithNock } from '../../test/nock-platform.ts';
import { ApiTokenProvider } from './api-token-provider.ts';

const issuer = 'http://127.0.0.1:4998';
const clientId = 'webhook-tools';
const clientSecret = 'tools-secret-value';

/** The client id and secret of a Basic header, form-decoded as RFC 6749 section 2.3.1 encodes them. */
function basicCredentials(header: string): string {
  const [id = '', secret = ''] = Buffer.from(header.replace(/^Basic /, ''), 'base64')
    .toString('utf8')
    .split(':');
  return `${decodeURIComponent(id)}:${decodeURIComponent(secret)}`;
}

function provider(clock = manualClock(), overrides: Partial<ConstructorParameters<typeof ApiTokenProvider>[0]> = {}) {
  return new ApiTokenProvider({ issuerUrl: issuer, clientId, clientSecret, timeoutMs: 1_000, clock, ...overrides });
}

function stageDiscovery() {
  return nock(issuer).get('/.well-known/openid-configuration').reply(200, discoveryDocument(issuer));
}

function stageToken(accessToken: string, expiresIn = 300) {
  return nock(issuer)
    .post('/token', (body: Record<string, string>) => body.grant_type === 'client_credentials' && body.scope === 'api')
    .matchHeader('authorization', (value) => basicCredentials(value ?? '') === `${clientId}:${clientSecret}`)
    .reply(200, { access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn, scope: 'api' });
}

stagePlatformWithNock();

describe('ApiTokenProvider', () => {
  it('gets a client_credentials token with scope api, authenticating the client', async () => {
    stageDiscovery();
    stageToken('app-token-1');
    expect(await provider().getToken()).toBe('app-token-1');
    expect(nock.isDone()).toBe(true);
  });

  it('keeps the token until shortly before it expires, then fetches a new one', async () => {
    const clock = manualClock();
    const tokens = provider(clock);
    stageDiscovery();
    stageToken('app-token-1', 300);
    expect(await tokens.getToken()).toBe('app-token-1');
    // openid-client counts expires_in from real time, so 300 may read as 299: keep a second apart.
    clock.advance(268_000);
    expect(await tokens.getToken()).toBe('app-token-1');
    stageToken('app-token-2', 300);
    clock.advance(3_000);
    expect(await tokens.getToken()).toBe('app-token-2');
    expect(nock.isDone()).toBe(true);
  });

  it('renews a short-lived token at half its lifetime at the latest', async () => {
    const clock = manualClock();
    const tokens = provider(clock);
    stageDiscovery();
    stageToken('short-1', 20);
    await tokens.getToken();
    clock.advance(8_900);
    expect(await tokens.getToken()).toBe('short-1');
    stageToken('short-2', 20);
    clock.advance(1_200);
    expect(await tokens.getToken()).toBe('short-2');
  });

  it('shares one request among concurrent callers', async () => {
    const tokens = provider();
    stageDiscovery();
    const token = stageToken('app-token-1');
    const results = await Promise.all(Array.from({ length: 10 }, () => tokens.getToken()));
    expect(new Set(results)).toEqual(new Set(['app-token-1']));
    expect(token.isDone()).toBe(true);
  });

  it('hands out a token without expires_in once and does not keep it', async () => {
    const tokens = provider();
    stageDiscovery();
    nock(issuer).post('/token').reply(200, { access_token: 'no-lifetime-1', token_type: 'Bearer', scope: 'api' });
    expect(await tokens.getToken()).toBe('no-lifetime-1');
    stageToken('app-token-2');
    expect(await tokens.getToken()).toBe('app-token-2');
    expect(nock.isDone()).toBe(true);
  });

  it('shares one failed request among concurrent callers, and asks again after it', async () => {
    const tokens = provider();
    stageDiscovery();
    const failed = nock(issuer).post('/token').once().reply(503, 'down for maintenance');
    const results = await Promise.all(Array.from({ length: 5 }, async () => (await platformFailure(tokens.getToken())).code));
    expect(results).toEqual(Array.from({ length: 5 }, () => 'PLATFORM_UNAVAILABLE'));
    expect(failed.isDone()).toBe(true);
    stageToken('app-token-1');
    expect(await tokens.getToken()).toBe('app-token-1');
  });

  it('hands a request under way at invalidate() to its callers, and does not keep its token', async () => {
    const tokens = provider();
    stageDiscovery();
    stageToken('app-token-1');
    const pending = tokens.getToken();
    tokens.invalidate();
    expect(await pending).toBe('app-token-1');
    stageToken('app-token-2');
    expect(await tokens.getToken()).toBe('app-token-2');
    expect(nock.isDone()).toBe(true);
  });

  it('does not keep a failure: the next call asks again', async () => {
    const tokens = provider();
    stageDiscovery();
    nock(issuer).post('/token').reply(503, 'down for maintenance');
    expect((await platformFailure(tokens.getToken())).code).toBe('PLATFORM_UNAVAILABLE');
    stageToken('app-token-1');
    expect(await tokens.getToken()).toBe('app-token-1');
  });

  it('retries discovery after it failed', async () => {
    const tokens = provider();
    nock(issuer).get('/.well-known/openid-configuration').reply(500);
    expect((await platformFailure(tokens.getToken())).code).toBe('PLATFORM_UNAVAILABLE');
    stageDiscovery();
    stageToken('app-token-1');
    expect(await tokens.getToken()).toBe('app-token-1');
  });

  it.each([
    [401, { error: 'invalid_client', error_description: 'client authentication failed' }],
    [400, { error: 'invalid_client' }],
    [400, { error: 'unauthorized_client' }],
    [400, { error: 'invalid_scope' }],
  ])('says the credentials were refused on %i %j', async (status, body) => {
    stageDiscovery();
    nock(issuer).post('/token').reply(status, body);
    const error = await platformFailure(provider().getToken());
    expect(error.code).toBe('APP_CREDENTIALS_REJECTED');
    expect(error.message).toMatch(
      /^The platform refused the app's client credentials \(.+\): .* This does not heal by itself: set the app's credentials and restart the service\.$/,
    );
    expect(error.message).not.toContain(clientSecret);
  });

  it.each([
    ['a 500 with a JSON error', 500, { error: 'server_error' }],
    ['a 502 with an HTML page', 502, '<html>bad gateway</html>'],
    ['a 429', 429, { error: 'slow_down' }],
  ])('says the platform is unavailable on %s', async (_case, status, body) => {
    stageDiscovery();
    nock(issuer).post('/token').reply(status, body);
    expect((await platformFailure(provider().getToken())).code).toBe('PLATFORM_UNAVAILABLE');
  });

  it('says the platform is unavailable when the connection is refused', async () => {
    nock.enableNetConnect('127.0.0.1');
    const tokens = provider(manualClock(), { issuerUrl: `http://127.0.0.1:${await closedPort()}` });
    expect((await platformFailure(tokens.getToken())).code).toBe('PLATFORM_UNAVAILABLE');
  });

  it('fetches a new token after invalidate()', async () => {
    const tokens = provider();
    stageDiscovery();
    stageToken('app-token-1');
    await tokens.getToken();
    tokens.invalidate();
    stageToken('app-token-2');
    expect(await tokens.getToken()).toBe('app-token-2');
  });

  it('refuses to be built without credentials', () => {
    expect(() => new ApiTokenProvider({ issuerUrl: issuer, clientId, clientSecret: '' })).toThrow('clientSecret is required');
    expect(() => new ApiTokenProvider({ issuerUrl: 'not a url', clientId, clientSecret })).toThrow('issuerUrl');
    expect(() => new ApiTokenProvider({ issuerUrl: 'http://login.example.com', clientId, clientSecret })).toThrow('plain http on loopback only');
  });
});
