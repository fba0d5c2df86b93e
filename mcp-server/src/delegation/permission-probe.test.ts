import { appToken, devSecrets, personToken, startPlatform } from '@platform/dev-platform/testing';
import { createHttpClient } from '@platform/tool-sdk/internal';
import { closedPort, manualClock, platformFailure, startPlatformFixture, startedForTests, type PlatformFixture } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { createDelegatedTokens } from './delegated-tokens.ts';
import { isDelegationError } from './delegation-error.ts';
import { createPermissionProbe } from './permission-probe.ts';

const mcpUrl = 'http://127.0.0.1:3000/mcp';
const platform = startedForTests(() => startPlatform());

/** A delegated token for `username` through `appClientId`, obtained as the gateway obtains it. */
async function delegatedFor(username: string, appClientId = 'webhook-tools', secret: string = devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET) {
  const tokens = createDelegatedTokens({
    issuerUrl: platform().issuer,
    clientId: 'mcp-gateway',
    clientSecret: devSecrets.MCP_GATEWAY_CLIENT_SECRET,
    timeoutMs: 5_000,
  });
  const actorToken = await appToken(platform().issuer, appClientId, secret);
  return tokens.get(await personToken(platform().issuer, username, { resource: mcpUrl }), { appClientId, actorToken: () => actorToken });
}

const probeAt = (apiBaseUrl: string, cacheTtlSeconds = 60) =>
  createPermissionProbe({ apiBaseUrl, httpClient: createHttpClient({ timeoutMs: 2_000 }), cacheTtlSeconds });

describe('createPermissionProbe at the real platform', () => {
  it('finds what oscar holds through webhook-tools: view and manage (person ∩ app)', async () => {
    const held = await probeAt(platform().issuer).permissionsOf(await delegatedFor('oscar'), 'webhook-tools');
    expect(held).toEqual(new Set(['device-overview:view', 'device-overview:manage', 'webhook-tools:use']));
  });

  it('finds only view for vera, a viewer', async () => {
    const held = await probeAt(platform().issuer).permissionsOf(await delegatedFor('vera'), 'webhook-tools');
    expect(held.has('device-overview:view')).toBe(true);
    expect(held.has('device-overview:manage')).toBe(false);
  });

  it('finds nothing for olivia, an owner without roles: an owner gets no wildcard under delegation', async () => {
    const held = await probeAt(platform().issuer).permissionsOf(await delegatedFor('olivia'), 'webhook-tools');
    expect(held.size).toBe(0);
  });

  it('does not trust an answer delegated to another app', async () => {
    const viaInsights = await delegatedFor('oscar', 'fleet-insights', devSecrets.FLEET_INSIGHTS_CLIENT_SECRET);
    const error = await probeAt(platform().issuer)
      .permissionsOf(viaInsights, 'webhook-tools')
      .catch((caught: unknown) => caught);
    expect(isDelegationError(error, 'DELEGATED_TOKEN_REFUSED')).toBe(true);
  });

  it("does not trust a person's own token", async () => {
    const own = await personToken(platform().issuer, 'oscar');
    const error = await probeAt(platform().issuer)
      .permissionsOf(own, 'webhook-tools')
      .catch((caught: unknown) => caught);
    expect(isDelegationError(error, 'DELEGATED_TOKEN_REFUSED')).toBe(true);
  });

  it('throws PlatformError, not a refusal, when the platform does not answer', async () => {
    const delegated = await delegatedFor('oscar');
    const error = await platformFailure(probeAt(`http://127.0.0.1:${await closedPort()}`).permissionsOf(delegated, 'webhook-tools'));
    expect(error.code).toBe('PLATFORM_UNAVAILABLE');
  });
});

describe('createPermissionProbe with a staged platform', () => {
  const fixture = startedForTests<PlatformFixture>(() => startPlatformFixture(), { per: 'test' });
  const delegated = { id: 'u-oscar', audience: 'http://platform.example', actor: { clientId: 'webhook-tools' } };
  const company = (id: number, permissions: string[]) => ({ id, name: `c${id}`, isOwner: false, roles: [], permissions });

  it('unites the permissions of every company', async () => {
    fixture().stage('delegated-1', { ...delegated, companies: [company(1, ['device-overview:view']), company(2, ['device-overview:manage'])] });
    expect(await probeAt(fixture().url).permissionsOf('delegated-1', 'webhook-tools')).toEqual(new Set(['device-overview:view', 'device-overview:manage']));
  });

  it('asks once within the cache lifetime, and again after it', async () => {
    const clock = manualClock();
    const probe = createPermissionProbe({ apiBaseUrl: fixture().url, httpClient: createHttpClient(), cacheTtlSeconds: 60, clock });
    fixture().stage('delegated-1', { ...delegated, companies: [company(1, ['device-overview:view'])] });
    await probe.permissionsOf('delegated-1', 'webhook-tools');
    await probe.permissionsOf('delegated-1', 'webhook-tools');
    expect(fixture().calls('delegated-1')).toBe(1);
    clock.advance(61_000);
    await probe.permissionsOf('delegated-1', 'webhook-tools');
    expect(fixture().calls('delegated-1')).toBe(2);
  });

  it('asks again after a refusal, which it does not keep', async () => {
    const probe = probeAt(fixture().url);
    await expect(probe.permissionsOf('delegated-1', 'webhook-tools')).rejects.toMatchObject({ code: 'DELEGATED_TOKEN_REFUSED' });
    fixture().stage('delegated-1', { ...delegated, companies: [company(1, ['device-overview:view'])] });
    expect(await probe.permissionsOf('delegated-1', 'webhook-tools')).toEqual(new Set(['device-overview:view']));
  });

  it.each([
    [503, 'PLATFORM_UNAVAILABLE'],
    [200, 'PLATFORM_BAD_RESPONSE'],
  ])('throws PlatformError on a %i it cannot use', async (status, code) => {
    fixture().stage('delegated-1', { status, body: status === 200 ? '{"not":"me"}' : 'down' });
    expect((await platformFailure(probeAt(fixture().url).permissionsOf('delegated-1', 'webhook-tools'))).code).toBe(code);
  });

  it('refuses a bad apiBaseUrl when built', () => {
    expect(() => probeAt('not a url')).toThrow('apiBaseUrl must be an absolute URL');
  });
});
