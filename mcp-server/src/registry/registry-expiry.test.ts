// Expiry on the in-memory store, judged by the injected clock, which the tests move instead of
// waiting: a registration whose heartbeats stop goes at its time, its tools with it, and a rival
// publisher never inherits the names it held. (On PostgreSQL the database's time judges expiry:
// test/replicas.test.ts waits for it there.)
import { seedWithToolPublishers, startPlatform } from '@platform/dev-platform/testing';
import { manualClock, startedForTests } from '@platform/tool-sdk/testing';
import type { ServingToolApp } from '@platform/tool-sdk/tools';
import { describe, expect, it } from 'vitest';
import type { ToolCatalog } from '../remote-tools.ts';
import { bearer, catalogWhere, namesIn, sampleTool, tokenOf, type Gateway, type SeededApp, startedPartsForTests } from '../../test/registry-harness.ts';

const platform = startedForTests(() => startPlatform({ seed: seedWithToolPublishers('fleet-insights') }));

const { gateway, toolService, client, announced } = startedPartsForTests(platform);

describe('expiry', () => {
  it('removes a registration whose heartbeats stop, and its tools disappear with onChange', async () => {
    const clock = manualClock(Date.now());
    const { registry, address, logs } = await gateway({ maxTtlSeconds: 1, clock, timers: clock });
    const service = await toolService({ gatewayAddress: address, serviceName: 'short-lived', tools: [sampleTool('alpha')], register: false });
    const registrar = client(address);
    const token = await tokenOf(platform(), 'webhook-tools');
    const emptied = catalogWhere(registry, (catalog) => catalog.tools.length === 0);
    const answer = await registrar.register({ serviceName: 'short-lived', callbackAddress: service.address, ttlSeconds: 30 }, bearer(token));

    expect(answer).toEqual({ ok: true, value: { registrationId: expect.any(String) as unknown, ttlSeconds: 1 } });
    expect(namesIn(registry.catalog())).toEqual(['alpha']);
    clock.advance(999);
    expect(namesIn(registry.catalog())).toEqual(['alpha']);
    clock.advance(1);
    await emptied;
    if (!answer.ok) return;
    expect(await registrar.heartbeat(answer.value.registrationId, bearer(token))).toMatchObject({
      ok: false,
      details: expect.stringContaining('register again') as unknown,
    });
    expect(logs.text()).toContain('"msg":"registration expired"');
  });

  it('is judged by the injected clock: a heartbeat after the time to live is NOT_FOUND and removes the tools at once', async () => {
    const clock = manualClock(Date.now());
    const { registry, address } = await gateway({ clock, maxTtlSeconds: 30 });
    const service = await toolService({ gatewayAddress: address, serviceName: 'clocked', tools: [sampleTool('alpha')], register: false });
    const registrar = client(address);
    const token = await tokenOf(platform(), 'webhook-tools');
    const answer = await registrar.register({ serviceName: 'clocked', callbackAddress: service.address, ttlSeconds: 30 }, bearer(token));
    if (!answer.ok) throw new Error(answer.details);
    const changes = announced(registry);

    clock.advance(29_000);
    expect(await registrar.heartbeat(answer.value.registrationId, bearer(token))).toEqual({ ok: true, value: { ttlSeconds: 30 } });
    clock.advance(29_000);
    expect(namesIn(registry.catalog())).toEqual(['alpha']);
    clock.advance(1_000);
    expect(await registrar.heartbeat(answer.value.registrationId, bearer(token))).toMatchObject({ ok: false, code: 5 });
    expect(changes.map(namesIn)).toEqual([[]]);
  });
});

describe('a rival publisher with the same service name and tool names', () => {
  async function register(at: Gateway, app: SeededApp, service: ServingToolApp): Promise<string> {
    const answer = await client(at.address).register(
      { serviceName: 'webhook-tools', callbackAddress: service.address, ttlSeconds: 30 },
      bearer(await tokenOf(platform(), app)),
    );
    if (!answer.ok) throw new Error(answer.details);
    return answer.value.registrationId;
  }

  const webhookToolsLookalike = () =>
    toolService({ gatewayAddress: '127.0.0.1:9', serviceName: 'webhook-tools', tools: [sampleTool('whoami'), sampleTool('create_webhook')], register: false });

  /** Which app each exposed name reaches. */
  const owners = (catalog: ToolCatalog) => Object.fromEntries(catalog.tools.map((tool) => [tool.exposedName, tool.service.appClientId]));

  it('does not inherit them when the real registration expires', async () => {
    const clock = manualClock(Date.now());
    const at = await gateway({ clock, timers: clock, maxTtlSeconds: 5 });
    await register(at, 'webhook-tools', await webhookToolsLookalike());
    const rival = await register(at, 'fleet-insights', await webhookToolsLookalike());
    const registrar = client(at.address);
    clock.advance(4_000);
    // The rival keeps its registration alive; the real service stops heartbeating.
    expect(await registrar.heartbeat(rival, bearer(await tokenOf(platform(), 'fleet-insights')))).toMatchObject({ ok: true });
    const expired = catalogWhere(at.registry, (catalog) => catalog.byName('whoami') === undefined);
    clock.advance(1_000);
    await expired;

    expect(owners(at.registry.catalog())).toEqual({ 'fleet-insights__whoami': 'fleet-insights', 'fleet-insights__create_webhook': 'fleet-insights' });
  });
});
