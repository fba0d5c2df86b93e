import { startedForTests } from '@platform/tool-sdk/testing';
import { platformAppIdentity, type Caller } from '@platform/tool-sdk';
import { CachedTokenResolver, createHttpClient, loadPlatformAppSettings, resolveCaller } from '@platform/tool-sdk/internal';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { devSecrets } from './dev-env.ts';
import { delegatedToken, getJson, personToken, startPlatform } from './harness.ts';

const running = startedForTests(() => startPlatform());

function settingsFor(clientId: string, secret: string) {
  return loadPlatformAppSettings({ PLATFORM_API_BASE_URL: running().issuer, APP_CLIENT_ID: clientId, APP_CLIENT_SECRET: secret });
}

describe('the SDK against the dev platform', () => {
  it("gets the app's token and key, and null for a client linked to no app", async () => {
    const tools = platformAppIdentity(settingsFor('webhook-tools', devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET));
    expect(await tools.appKey()).toBe('webhook-tools');
    const token = await tools.accessToken();
    expect((await getJson(`${running().issuer}/api/apps/me`, token)).body).toEqual({
      clientId: 'webhook-tools',
      appKey: 'webhook-tools',
      name: 'Webhook tools',
      toolPublisher: true,
    });
    const legacy = platformAppIdentity(settingsFor('legacy-sync', devSecrets.LEGACY_SYNC_CLIENT_SECRET));
    expect(await legacy.appKey()).toBeNull();
  });

  it('says at /api/apps/me whether the platform lets the app publish tools: only webhook-tools in the seed', async () => {
    const fleet = await platformAppIdentity(settingsFor('fleet-insights', devSecrets.FLEET_INSIGHTS_CLIENT_SECRET)).accessToken();
    expect((await getJson(`${running().issuer}/api/apps/me`, fleet)).body).toMatchObject({ clientId: 'fleet-insights', toolPublisher: false });
    const legacy = await platformAppIdentity(settingsFor('legacy-sync', devSecrets.LEGACY_SYNC_CLIENT_SECRET)).accessToken();
    expect((await getJson(`${running().issuer}/api/apps/me`, legacy)).body).toMatchObject({ appKey: null, toolPublisher: false });
  });

  it('says the credentials were refused for a wrong secret', async () => {
    const wrong = platformAppIdentity(settingsFor('webhook-tools', 'definitely-not-the-secret'));
    await expect(wrong.accessToken()).rejects.toMatchObject({ code: 'APP_CREDENTIALS_REJECTED' });
  });

  it('answers 403 at /api/apps/me to a person', async () => {
    expect((await getJson(`${running().issuer}/api/apps/me`, await personToken(running().issuer, 'oscar'))).status).toBe(403);
  });

  it('resolves a delegated caller with narrowed permissions, from the cache on the second call', async () => {
    const http = createHttpClient();
    const cache = new CachedTokenResolver<Caller>({ scope: running().issuer, ttlSeconds: 60 });
    const token = await delegatedToken(running().issuer, 'oscar');
    const caller = await resolveCaller(token, http, running().issuer, cache, 60);
    expect(caller?.companies.map((c) => [c.id, [...c.permissions].sort()])).toEqual([
      [1, ['device-overview:manage', 'device-overview:view', 'webhook-tools:use']],
      [2, ['device-overview:view', 'webhook-tools:use']],
    ]);
    expect(cache.size).toBe(1);
    expect(await resolveCaller(token, http, running().issuer, cache, 60)).toBe(caller);
    expect(await resolveCaller('not-a-token', http, running().issuer, cache, 60)).toBeNull();
  });
});

describe('POST /dev/token', () => {
  async function devToken(body: unknown) {
    const response = await fetch(`${running().issuer}/dev/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('issues a person token for the requested lifetime and resource', async () => {
    const result = await devToken({ username: 'vera', expiresIn: 120, resource: 'http://127.0.0.1:3000/mcp' });
    expect(result).toMatchObject({ status: 200, body: { token_type: 'Bearer', expires_in: 120, scope: 'api' } });
  });

  it('issues a token that expired a minute ago when asked, for tests of its refusal', async () => {
    const result = await devToken({ username: 'vera', expiresIn: 120, expired: true });
    expect(result).toMatchObject({ status: 200, body: { expires_in: 0 } });
    const { iat, exp } = decodeJwt(String(result.body.access_token));
    expect(exp).toBe((iat ?? 0) + 120);
    expect(exp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) - 60);
  });

  it.each([
    [{ username: 'nobody' }, 404, 'username'],
    [{ username: 'vera', resource: 'https://elsewhere.example' }, 400, 'resource'],
    [{ username: 'vera', expiresIn: 0 }, 400, 'expiresIn'],
    [{ username: 'vera', expired: false }, 400, 'expired'],
    [{ username: 'vera', extra: true }, 400, 'extra'],
    [{}, 400, 'username'],
  ])('refuses %j with %i naming the field', async (body, status, field) => {
    const result = await devToken(body);
    expect(result.status).toBe(status);
    expect(String(result.body.message)).toContain(field);
  });

  it.each([
    ['NUL', 'vera\u0000'],
    ['a line break', 'vera\nadmin'],
    ['a C1 control', 'vera\u0085'],
  ])('refuses a username with %s with 400, without repeating it', async (_case, username) => {
    const result = await devToken({ username });
    expect(result).toMatchObject({ status: 400, body: { error: 'invalid_request', message: 'username: must not contain control characters' } });
  });

  it('answers an unknown username with 404 "no such user", never repeating the name', async () => {
    const result = await devToken({ username: '<script>nobody</script>' });
    expect(result).toMatchObject({ status: 404, body: { error: 'not_found', message: 'username: no such user' } });
  });
});
