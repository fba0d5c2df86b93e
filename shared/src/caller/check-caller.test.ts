import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCallerCheck, type CallerCheckOptions } from './check-caller.ts';
import { createHttpClient } from '../http/client.ts';
import { closedPort, manualClock, platformFailure, startPlatformFixture, type PlatformFixture, type StagedCaller } from '../testing/index.ts';

let platform: PlatformFixture;
beforeAll(async () => {
  platform = await startPlatformFixture();
});
afterAll(async () => {
  await platform.close();
});

const mcpUrl = 'http://127.0.0.1:3000/mcp';
const companies = [{ id: 1, name: 'Acme', isOwner: false, roles: [], permissions: ['device-overview:view'] }];
const person = (audience: string[]): StagedCaller => ({ id: 'u-oscar', audience, companies });
const delegated = (clientId: string): StagedCaller => ({ id: 'u-oscar', audience: [platform.url], actor: { clientId }, companies });

function check(options: Partial<CallerCheckOptions> = {}) {
  return createCallerCheck({
    apiBaseUrl: platform.url,
    audience: platform.url,
    httpClient: createHttpClient({ timeoutMs: 2_000 }),
    cacheTtlSeconds: 60,
    ...options,
  });
}

describe('createCallerCheck', () => {
  it('answers the caller and the credential for a token issued for this service', async () => {
    platform.stage('api-token-1', person([platform.url]));
    const result = await check()('Bearer api-token-1');
    expect(result).toMatchObject({
      ok: true,
      caller: { id: 'u-oscar', audience: [platform.url], actor: undefined },
      credential: { scheme: 'Bearer', token: 'api-token-1' },
    });
  });

  it('refuses a token issued for another audience (a token meant for the MCP server is no credential here)', async () => {
    platform.stage('mcp-token-1', person([mcpUrl]));
    expect(await check()('Bearer mcp-token-1')).toEqual({ ok: false, error: 'invalid_token', description: 'the token was not issued for this service' });
    // and the other way round: the gateway takes it, and nothing issued for the API.
    expect((await check({ audience: mcpUrl })('Bearer mcp-token-1')).ok).toBe(true);
    platform.stage('api-token-2', person([platform.url]));
    expect((await check({ audience: mcpUrl })('Bearer api-token-2')).ok).toBe(false);
  });

  it('compares audiences without regard to a trailing slash', async () => {
    platform.stage('slash-token', person([`${platform.url}/`]));
    expect((await check()('Bearer slash-token')).ok).toBe(true);
  });

  it('holds delegated tokens to the actor rule: person-only, any, or one app', async () => {
    platform.stage('delegated-tools', delegated('webhook-tools'));
    expect(await check({ actor: 'person-only' })('Bearer delegated-tools')).toMatchObject({
      ok: false,
      error: 'invalid_token',
      description: 'a delegated token is not accepted here',
    });
    expect((await check({ actor: 'any' })('Bearer delegated-tools')).ok).toBe(true);
    expect((await check({ actor: { clientId: 'webhook-tools' } })('Bearer delegated-tools')).ok).toBe(true);
    expect(await check({ actor: { clientId: 'fleet-insights' } })('Bearer delegated-tools')).toMatchObject({
      ok: false,
      description: 'the token is not delegated to this app',
    });
    // A person's own token where a delegated one belongs is refused too.
    platform.stage('own-token', person([platform.url]));
    expect((await check({ actor: { clientId: 'webhook-tools' } })('Bearer own-token')).ok).toBe(false);
  });

  it('answers per RFC 6750: no error code without a credential, invalid_request for a malformed or repeated header', async () => {
    const run = check();
    expect(await run(undefined)).toMatchObject({ ok: false, error: undefined });
    expect(await run([])).toMatchObject({ ok: false, error: undefined });
    expect(await run('Basic dTpw')).toMatchObject({ ok: false, error: 'invalid_request' });
    expect(await run('Bearer two tokens')).toMatchObject({ ok: false, error: 'invalid_request' });
    platform.stage('dup-token', person([platform.url]));
    expect(await run(['Bearer dup-token', 'Bearer dup-token'])).toMatchObject({
      ok: false,
      error: 'invalid_request',
      description: 'send one Authorization header, not several',
    });
    expect((await run(['Bearer dup-token'])).ok).toBe(true);
  });

  it('takes ApiToken only where the service allows it, and keys it apart from the same string as a bearer', async () => {
    platform.stage('shared-string', person([platform.url]), 'ApiToken');
    expect(await check()('ApiToken shared-string')).toMatchObject({ ok: false, error: 'invalid_request' });
    const both = check({ schemes: ['Bearer', 'ApiToken'] });
    expect(await both('ApiToken shared-string')).toMatchObject({ ok: true, credential: { scheme: 'ApiToken' } });
    // The cached ApiToken success is not a Bearer success.
    expect(await both('Bearer shared-string')).toMatchObject({ ok: false, error: 'invalid_token' });
  });

  it('checks a token once within the cache lifetime, and a refused one every time', async () => {
    const run = check();
    platform.stage('cached-token', person([platform.url]));
    const before = platform.calls('cached-token');
    await run('Bearer cached-token');
    await run('Bearer cached-token');
    expect(platform.calls('cached-token') - before).toBe(1);
    await run('Bearer never-staged');
    await run('Bearer never-staged');
    expect(platform.calls('never-staged')).toBe(2);
  });

  it('with permissionsMaxAgeSeconds, keeps the identity cached but uses no answer older than that: a removed permission is refused within it', async () => {
    const clock = manualClock(Date.now());
    const run = check({ permissionsMaxAgeSeconds: 2, clock });
    platform.stage('revocable', person([platform.url]));
    const permissionsOf = async () => {
      const result = await run('Bearer revocable');
      return result.ok ? [...(result.caller.companies[0]?.permissions ?? [])] : result.description;
    };
    expect(await permissionsOf()).toEqual(['device-overview:view']);
    platform.stage('revocable', { ...person([platform.url]), companies: companies.map((company) => ({ ...company, permissions: [] })) });
    clock.advance(999);
    expect(await permissionsOf()).toEqual(['device-overview:view']);
    expect(platform.calls('revocable')).toBe(1);
    clock.advance(1_001);
    expect(await permissionsOf()).toEqual([]);
    expect(platform.calls('revocable')).toBe(2);
    // A revoked token: refused once its answer is the max age old, not after the 60 s cache lifetime.
    platform.stage('revocable', { status: 401 });
    clock.advance(2_000);
    expect(await permissionsOf()).toBe('the token is invalid or expired');
  });

  it('throws PLATFORM_UNAVAILABLE for an outage, never a refusal of the caller', async () => {
    platform.stage('outage-token', { status: 503 });
    expect((await platformFailure(check()('Bearer outage-token'))).code).toBe('PLATFORM_UNAVAILABLE');
    const down = check({ apiBaseUrl: `http://127.0.0.1:${await closedPort()}` });
    expect((await platformFailure(down('Bearer any-token'))).code).toBe('PLATFORM_UNAVAILABLE');
  });

  it('throws PLATFORM_BAD_RESPONSE for an answer without an audience or a huge one', async () => {
    platform.stage('no-audience', { status: 200, body: JSON.stringify({ id: 'u-1', companies: [] }) });
    expect((await platformFailure(check()('Bearer no-audience'))).code).toBe('PLATFORM_BAD_RESPONSE');
    platform.stage('huge-answer', {
      status: 200,
      body: JSON.stringify({ id: 'u-1', audience: [platform.url], companies: [], padding: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect((await platformFailure(check()('Bearer huge-answer'))).code).toBe('PLATFORM_BAD_RESPONSE');
  });

  it('names a bad option when it is built', () => {
    expect(() => check({ audience: 'not a url' })).toThrow(/audience/);
    expect(() => check({ schemes: [] })).toThrow(/schemes/);
    expect(() => check({ permissionsMaxAgeSeconds: 0 })).toThrow(/permissionsMaxAgeSeconds/);
  });
});
