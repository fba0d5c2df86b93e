import { appToken, devSecrets, personToken, startPlatform } from '@platform/dev-platform/testing';
import { createHttpClient, fetchCaller } from '@platform/tool-sdk/internal';
import { manualClock, startedForTests } from '@platform/tool-sdk/testing';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { createDelegatedTokens, type DelegatedTokensOptions, type DelegationTarget } from './delegated-tokens.ts';

const mcpUrl = 'http://127.0.0.1:3000/mcp';
const platform = startedForTests(() => startPlatform());

/** The gateway's delegated tokens at the test platform, counting the exchanges that reach its token endpoint. */
function gatewayTokens(overrides: Partial<DelegatedTokensOptions> = {}) {
  let exchanges = 0;
  const tokens = createDelegatedTokens({
    issuerUrl: platform().issuer,
    clientId: 'mcp-gateway',
    clientSecret: devSecrets.MCP_GATEWAY_CLIENT_SECRET,
    timeoutMs: 5_000,
    fetch: (url, init) => {
      if (init?.method === 'POST') exchanges += 1;
      return fetch(url, init);
    },
    ...overrides,
  });
  return { tokens, exchanges: () => exchanges };
}

/** A tool service as the registry knows it: its app and the app's latest token, read on use. */
async function toolService(appClientId = 'webhook-tools', secret: string = devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET) {
  const actorToken = await appToken(platform().issuer, appClientId, secret);
  let reads = 0;
  const service: DelegationTarget = {
    appClientId,
    actorToken: () => {
      reads += 1;
      return actorToken;
    },
  };
  return { service, reads: () => reads };
}

const callerToken = (username = 'oscar', body: Record<string, unknown> = {}) => personToken(platform().issuer, username, { resource: mcpUrl, ...body });

describe('createDelegatedTokens', () => {
  it("exchanges the caller's token for one that stands for the person acting through the app", async () => {
    const { tokens } = gatewayTokens();
    const { service } = await toolService();
    const delegated = await tokens.get(await callerToken('oscar'), service);

    const caller = await fetchCaller(delegated, createHttpClient(), platform().issuer);
    expect(caller).toMatchObject({ id: 'u-oscar', actor: { clientId: 'webhook-tools' } });
    const claims = decodeJwt(delegated);
    expect(claims).toMatchObject({ sub: 'u-oscar', act: { sub: 'webhook-tools' }, aud: platform().issuer, scope: 'api' });
  });

  it('issues a token that lives at most five minutes and never past the caller’s own', async () => {
    const { tokens } = gatewayTokens();
    const { service } = await toolService();
    const longLived = await callerToken('oscar');
    const shortLived = await callerToken('vera', { expiresIn: 120 });
    const now = Math.floor(Date.now() / 1000);

    expect(decodeJwt(await tokens.get(longLived, service)).exp).toBeLessThanOrEqual(now + 300 + 1);
    const shortExp = decodeJwt(await tokens.get(shortLived, service)).exp;
    expect(shortExp).toBeLessThanOrEqual(decodeJwt(shortLived).exp ?? 0);
    expect(shortExp).toBeGreaterThan(now);
  });

  it('keeps the token: a second get() exchanges nothing and reads no actor token', async () => {
    const { tokens, exchanges } = gatewayTokens();
    const { service, reads } = await toolService();
    const caller = await callerToken();
    const first = await tokens.get(caller, service);
    expect(await tokens.get(caller, service)).toBe(first);
    expect(exchanges()).toBe(1);
    expect(reads()).toBe(1);
  });

  it('shares one exchange among 20 concurrent get()s for the same caller and app', async () => {
    const { tokens, exchanges } = gatewayTokens();
    const { service } = await toolService();
    const caller = await callerToken();
    const results = await Promise.all(Array.from({ length: 20 }, () => tokens.get(caller, service)));
    expect(new Set(results).size).toBe(1);
    expect(exchanges()).toBe(1);
  });

  it('shares one failed exchange among concurrent get()s, and keeps nothing of it: the next get() exchanges again', async () => {
    const { tokens, exchanges } = gatewayTokens();
    const legacy = await appToken(platform().issuer, 'legacy-sync', devSecrets.LEGACY_SYNC_CLIENT_SECRET);
    const service: DelegationTarget = { appClientId: 'webhook-tools', actorToken: () => legacy };
    const caller = await callerToken();
    const failures = await Promise.all(Array.from({ length: 10 }, () => tokens.get(caller, service).catch((error: unknown) => error)));
    expect(new Set(failures).size).toBe(1);
    expect(failures[0]).toMatchObject({ name: 'DelegationError', code: 'ACTOR_REFUSED' });
    expect(exchanges()).toBe(1);

    await expect(tokens.get(caller, service)).rejects.toMatchObject({ code: 'ACTOR_REFUSED' });
    expect(exchanges()).toBe(2);
  });

  it('renews a token past its renewal time with one exchange, shared by every concurrent get() and lease()', async () => {
    const clock = manualClock(Date.now());
    const { tokens, exchanges } = gatewayTokens({ clock });
    const { service } = await toolService();
    const caller = await callerToken();
    const first = await tokens.get(caller, service);

    clock.advance(271_000);
    const renewed = await Promise.all([
      ...Array.from({ length: 10 }, () => tokens.get(caller, service)),
      tokens.lease(caller, service, 0.5).then(({ value }) => value),
    ]);
    expect(new Set(renewed).size).toBe(1);
    expect(renewed[0]).not.toBe(first);
    expect(exchanges()).toBe(2);
  });

  it('gets another token for another app', async () => {
    const { tokens, exchanges } = gatewayTokens();
    const caller = await callerToken();
    const viaTools = await tokens.get(caller, (await toolService()).service);
    const viaInsights = await tokens.get(caller, (await toolService('fleet-insights', devSecrets.FLEET_INSIGHTS_CLIENT_SECRET)).service);
    expect(viaInsights).not.toBe(viaTools);
    expect(decodeJwt(viaInsights).act).toEqual({ sub: 'fleet-insights' });
    expect(exchanges()).toBe(2);
  });

  it('gets another token for another caller token, even of the same person', async () => {
    const { tokens, exchanges } = gatewayTokens();
    const { service } = await toolService();
    const first = await tokens.get(await callerToken('oscar'), service);
    const second = await tokens.get(await callerToken('oscar'), service);
    expect(second).not.toBe(first);
    expect(exchanges()).toBe(2);
  });

  it('uses the actor token the service holds at the moment of the exchange', async () => {
    const { tokens } = gatewayTokens();
    const legacy = await appToken(platform().issuer, 'legacy-sync', devSecrets.LEGACY_SYNC_CLIENT_SECRET);
    const current = await appToken(platform().issuer, 'webhook-tools', devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET);
    let actorToken = legacy;
    const service: DelegationTarget = { appClientId: 'webhook-tools', actorToken: () => actorToken };
    const caller = await callerToken();
    await expect(tokens.get(caller, service)).rejects.toMatchObject({ code: 'ACTOR_REFUSED' });
    // The heartbeat replaced it: the next exchange sends the new one.
    actorToken = current;
    expect(decodeJwt(await tokens.get(caller, service)).act).toEqual({ sub: 'webhook-tools' });
  });

  it('asks the platform nothing when the service holds no actor token, and says the app cannot act', async () => {
    const { tokens, exchanges } = gatewayTokens();
    const refused = await tokens.get(await callerToken('oscar'), { appClientId: 'webhook-tools', actorToken: () => '' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'DelegationError', code: 'ACTOR_REFUSED' });
    expect(exchanges()).toBe(0);
  });

  it('renews the token 30 seconds before it expires', async () => {
    const clock = manualClock(Date.now());
    const { tokens, exchanges } = gatewayTokens({ clock });
    const { service } = await toolService();
    const caller = await callerToken();
    const first = await tokens.get(caller, service);
    const lifetime = (decodeJwt(first).exp ?? 0) - (decodeJwt(first).iat ?? 0);
    expect(lifetime).toBe(300);

    clock.advance(269_000);
    expect(await tokens.get(caller, service)).toBe(first);
    clock.advance(2_000);
    const renewed = await tokens.get(caller, service);
    expect(renewed).not.toBe(first);
    expect(exchanges()).toBe(2);
  });

  it('renews a short-lived token when a quarter of its lifetime is left', async () => {
    const clock = manualClock(Date.now());
    const { tokens, exchanges } = gatewayTokens({ clock });
    const { service } = await toolService();
    const caller = await callerToken('oscar', { expiresIn: 40 });
    const first = await tokens.get(caller, service);
    const lifetime = (decodeJwt(first).exp ?? 0) - (decodeJwt(first).iat ?? 0);
    expect(lifetime).toBeLessThanOrEqual(40);

    clock.advance(lifetime * 750 - 1_000);
    expect(await tokens.get(caller, service)).toBe(first);
    clock.advance(2_000);
    expect(await tokens.get(caller, service)).not.toBe(first);
    expect(exchanges()).toBe(2);
  });

  it('forgets a token on request, so the next get() exchanges again', async () => {
    const { tokens, exchanges } = gatewayTokens();
    const { service } = await toolService();
    const caller = await callerToken();
    const first = await tokens.get(caller, service);
    tokens.forget(caller, 'fleet-insights');
    expect(await tokens.get(caller, service)).toBe(first);
    tokens.forget(caller, 'webhook-tools');
    expect(await tokens.get(caller, service)).not.toBe(first);
    expect(exchanges()).toBe(2);
  });

  it('forgets a refused token only while it is still the kept one, so concurrent refusals share one new exchange', async () => {
    const { tokens, exchanges } = gatewayTokens();
    const { service } = await toolService();
    const caller = await callerToken();
    const refused = await tokens.get(caller, service);
    tokens.forget(caller, 'webhook-tools', refused);
    const renewed = await tokens.get(caller, service);
    expect(renewed).not.toBe(refused);
    // A second call refused with the old token comes late: the new one stays.
    tokens.forget(caller, 'webhook-tools', refused);
    expect(await tokens.get(caller, service)).toBe(renewed);
    expect(exchanges()).toBe(2);
  });

  it('keeps at most maxEntries tokens, dropping the least recently used', async () => {
    const { tokens, exchanges } = gatewayTokens({ maxEntries: 1 });
    const { service } = await toolService();
    const [oscar, vera] = [await callerToken('oscar'), await callerToken('vera')];
    await tokens.get(oscar, service);
    await tokens.get(vera, service);
    await tokens.get(vera, service);
    expect(exchanges()).toBe(2);
    await tokens.get(oscar, service);
    expect(exchanges()).toBe(3);
  });

  it.each([
    ['issuerUrl', { issuerUrl: 'http://platform.example' }, 'issuerUrl must be an https URL'],
    ['issuerUrl', { issuerUrl: 'not a url' }, 'issuerUrl must be an https URL'],
    ['clientId', { clientId: '' }, 'clientId is required'],
    ['clientSecret', { clientSecret: '' }, 'clientSecret is required'],
    ['timeoutMs', { timeoutMs: 0 }, 'timeoutMs must be a positive whole number (got 0)'],
    ['maxEntries', { maxEntries: 1.5 }, 'maxEntries must be a positive whole number (got 1.5)'],
  ])('refuses a bad %s when built', (_option, overrides, message) => {
    expect(() =>
      createDelegatedTokens({ issuerUrl: 'https://platform.example', clientId: 'mcp-gateway', clientSecret: 'secret', timeoutMs: 1_000, ...overrides }),
    ).toThrow(message);
  });
});
