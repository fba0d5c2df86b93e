// MCP client onboarding as real authorization servers do it: redirect URIs only to loopback http
// or https without user information or wildcards; a consent page the first time a person
// authorizes a client, naming it and its redirect host (silent only for clients they approved);
// registrations rate-limited per source; and a full client store that makes room from the clients
// unused for longest, never one in use.
import { manualClock, startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { browser, signIn, type SignInOptions } from './headless-sign-in.ts';
import { startPlatform } from './harness.ts';
import { pkceAuthorization } from './pkce-authorization.ts';

const oscar = { username: 'oscar', password: 'oscar-dev-password' };
const redirectUri = 'http://127.0.0.1:45680/callback';

function registration(issuer: string, body: Record<string, unknown>) {
  return fetch(new URL('/reg', issuer), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

const metadata = (overrides: Record<string, unknown> = {}) => ({
  client_name: 'Onboarding test client',
  redirect_uris: [redirectUri],
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  ...overrides,
});

async function register(issuer: string, name: string): Promise<string> {
  const response = await registration(issuer, metadata({ client_name: name }));
  if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { client_id: string }).client_id;
}

async function authorize(issuer: string, clientId: string, options: SignInOptions = {}) {
  const { url } = await pkceAuthorization(issuer, clientId, redirectUri);
  return signIn(url.href, oscar, options);
}

describe('dynamic client registration', () => {
  const platform = startedForTests(() => startPlatform());

  it.each([
    ['http to another host', 'http://evil.example/cb'],
    ['a wildcard host', 'https://*.example.com/cb'],
    ['a wildcard path', 'https://app.example/*'],
    ['user information', 'https://user:secret@app.example/cb'],
    ['a custom scheme', 'myapp://callback'],
    ['a name that only starts like loopback', 'http://localhost.evil.example/cb'],
  ])('refuses a redirect URI with %s', async (_case, uri) => {
    const response = await registration(platform().issuer, metadata({ redirect_uris: [redirectUri, uri] }));

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_redirect_uri', error_description: expect.stringContaining(uri) as unknown });
  });

  it.each(['http://127.0.0.1:54321/callback', 'http://localhost:33418/oauth/callback', 'http://[::1]:8080/cb', 'https://agent.example/oauth/callback'])(
    'takes the redirect URI %s',
    async (uri) => {
      expect((await registration(platform().issuer, metadata({ redirect_uris: [uri] }))).status).toBe(201);
    },
  );
});

describe('the first authorization of a client by a person', () => {
  const platform = startedForTests(() => startPlatform());

  it('shows a consent page naming the client and its redirect host, and only an approved client is silent afterwards', async () => {
    const signedIn = browser();
    const known = await register(platform().issuer, 'Known agent');
    const first = await authorize(platform().issuer, known, { visit: signedIn });
    expect(first).toMatchObject({ kind: 'redirected', consentShown: true });
    const again = await authorize(platform().issuer, known, { visit: signedIn });
    expect(again).toMatchObject({ kind: 'redirected', consentShown: false });
    expect(again.kind === 'redirected' && again.callback.searchParams.get('code')).toBeTruthy();

    // A client registered afterwards gets no code for the person just because they signed in before.
    const newcomer = await register(platform().issuer, 'Sneaky <b>newcomer</b>');
    const asked = await authorize(platform().issuer, newcomer, { visit: signedIn, consent: 'stop' });
    expect(asked.kind).toBe('consent');
    const page = asked.kind === 'consent' ? asked.page : '';
    expect(page).toContain('Sneaky &#60;b&#62;newcomer&#60;/b&#62;');
    expect(page).toContain('127.0.0.1:45680');
    expect(page).toContain(newcomer);
  });

  it('sends the client an access_denied error, and no code, when the person denies it', async () => {
    const clientId = await register(platform().issuer, 'Denied agent');
    const outcome = await authorize(platform().issuer, clientId, { consent: 'deny' });

    expect(outcome.kind).toBe('redirected');
    const callback = outcome.kind === 'redirected' ? outcome.callback : new URL(redirectUri);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('code')).toBeNull();
  });
});

describe('registrations from one source', () => {
  const clock = manualClock(Date.now());
  const platform = startedForTests(() => startPlatform({ env: { PLATFORM_REGISTRATIONS_PER_MINUTE: '3' }, clock }));

  it('are limited per minute: past the limit 429 with Retry-After, and again allowed once the minute is over', async () => {
    for (let index = 0; index < 3; index += 1) await register(platform().issuer, `burst ${index}`);
    const refused = await registration(platform().issuer, metadata());

    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
    clock.advance(60_000);
    expect((await registration(platform().issuer, metadata())).status).toBe(201);
  });
});

describe('a full client store', () => {
  const clock = manualClock(Date.now());
  const platform = startedForTests(() =>
    startPlatform({ env: { PLATFORM_MAX_CLIENTS: '2', PLATFORM_CLIENT_EVICT_UNUSED_SECONDS: '3600', PLATFORM_REGISTRATIONS_PER_MINUTE: '1000' }, clock }),
  );

  it('takes a new client in place of the one unused for longest, and refuses (503) only while every client is in use', async () => {
    const first = await register(platform().issuer, 'First');
    clock.advance(1_000);
    const second = await register(platform().issuer, 'Second');
    clock.advance(1_000);
    // Neither signed anyone in: the first registered makes room for a newcomer.
    const newcomer = await register(platform().issuer, 'Newcomer');
    await expect(authorize(platform().issuer, first)).rejects.toThrow(/stuck at \/auth: 400/);
    expect(await authorize(platform().issuer, second)).toMatchObject({ kind: 'redirected' });
    expect(await authorize(platform().issuer, newcomer)).toMatchObject({ kind: 'redirected' });

    // Both signed oscar in: in use, so the store takes no one else.
    const flood = await registration(platform().issuer, metadata({ client_name: 'Flood' }));
    expect(flood.status).toBe(503);
    expect(await flood.json()).toMatchObject({ error: 'temporarily_unavailable' });

    // In use as long as the grant they got lives (8 h), past the hour set; then the longest unused goes.
    clock.advance(8 * 3_600_000);
    expect(await authorize(platform().issuer, newcomer)).toMatchObject({ kind: 'redirected' });
    expect((await registration(platform().issuer, metadata({ client_name: 'Later' }))).status).toBe(201);
    await expect(authorize(platform().issuer, second)).rejects.toThrow(/stuck at \/auth: 400/);
    expect(await authorize(platform().issuer, newcomer)).toMatchObject({ kind: 'redirected' });
  });
});
