// The registry's life cycle on loopback: the real dev platform checks the app tokens, real tool
// services built on the SDK register, heartbeat and deregister, and the catalog follows.
import { seedWithToolPublishers, startPlatform } from '@platform/dev-platform/testing';
import { heartbeatDelay } from '@platform/tool-sdk/internal';
import { manualClock, startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { bearer, catalogWhere, namesIn, sampleTool, tokenOf, startedPartsForTests } from '../../test/registry-harness.ts';

// fleet-insights publishes tools too here: a rival publisher beside webhook-tools.
const platform = startedForTests(() => startPlatform({ seed: seedWithToolPublishers('fleet-insights') }));

const { gateway, toolService, client, announced } = startedPartsForTests(platform);

describe('a tool service registered with the SDK', () => {
  it('has its tools listed, announced by onChange, and removed when it closes and deregisters', async () => {
    const { registry, address, pool, logs } = await gateway();
    const listed = catalogWhere(registry, (catalog) => catalog.tools.length === 2);
    const service = await toolService({ gatewayAddress: address, serviceName: 'hello-tools', tools: [sampleTool('beta'), sampleTool('alpha')] });
    const catalog = await listed;
    // The catalog changes before the Register answer reaches the service.
    await expect.poll(() => service.registration?.state.registrationId).toBeDefined();

    expect(namesIn(catalog)).toEqual(['alpha', 'beta']);
    const alpha = catalog.byName('alpha');
    expect(alpha).toMatchObject({
      exposedName: 'alpha',
      name: 'alpha',
      title: 'The alpha tool',
      description: 'Does alpha.',
      outputSchema: undefined,
      requiresPermission: undefined,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false },
    });
    expect(alpha?.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false });
    expect(alpha?.service).toMatchObject({
      registrationId: service.registration?.state.registrationId,
      serviceName: 'hello-tools',
      appClientId: 'webhook-tools',
      callbackAddress: service.address,
    });
    expect(Object.isFrozen(catalog.tools)).toBe(true);
    expect(registry.catalog()).toBe(catalog);
    expect(pool.openAddresses()).toEqual([service.address]);

    const emptied = catalogWhere(registry, (next) => next.tools.length === 0);
    await service.close(1_000);
    const after = await emptied;

    expect(after.version).toBeGreaterThan(catalog.version);
    expect(after.byName('alpha')).toBeUndefined();
    expect(registry.services()).toEqual([]);
    expect(pool.openAddresses()).toEqual([]);
    const lines = logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        method: 'Register',
        serviceName: 'hello-tools',
        appClientId: 'webhook-tools',
        outcome: 'OK',
        durationMs: expect.any(Number) as unknown,
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ method: 'Deregister', serviceName: 'hello-tools', outcome: 'OK', registrationId: alpha?.service.registrationId }),
    );
  });

  it('stays listed while its heartbeats keep it alive past its granted time to live', async () => {
    // The registry's expiries and the service's waits run on one clock, which the test moves.
    const clock = manualClock(Date.now());
    const { registry, address } = await gateway({ maxTtlSeconds: 2, clock, timers: clock });
    const listed = catalogWhere(registry, (catalog) => catalog.tools.length === 1);
    const service = await toolService({ gatewayAddress: address, serviceName: 'kept-alive', tools: [sampleTool('alpha')], ttlSeconds: 30, timers: clock });
    await listed;

    await expect.poll(() => service.registration?.state.grantedTtlSeconds).toBe(2);
    const registered = clock();
    for (let heartbeat = 1; heartbeat <= 4; heartbeat += 1) {
      clock.advance(heartbeatDelay(2));
      await expect.poll(() => service.registration?.state.heartbeats).toBe(heartbeat);
    }
    expect(clock() - registered).toBeGreaterThan(2_000);
    expect(namesIn(registry.catalog())).toEqual(['alpha']);
    expect(registry.services().map((endpoint) => endpoint.registrationId)).toEqual([service.registration?.state.registrationId]);
  });
});

describe('the actor token', () => {
  it('is the token of the latest Register or Heartbeat', async () => {
    const { registry, address } = await gateway();
    const service = await toolService({ gatewayAddress: address, serviceName: 'actor', tools: [sampleTool('alpha')], register: false });
    const registrar = client(address);
    const first = await tokenOf(platform(), 'webhook-tools');
    const second = await tokenOf(platform(), 'webhook-tools');
    expect(second).not.toBe(first);

    const answer = await registrar.register({ serviceName: 'actor', callbackAddress: service.address, ttlSeconds: 30 }, bearer(first));
    if (!answer.ok) throw new Error(answer.details);
    const endpoint = registry.catalog().byName('alpha')?.service;
    expect(endpoint?.actorToken()).toBe(first);

    expect(await registrar.heartbeat(answer.value.registrationId, bearer(second))).toEqual({ ok: true, value: { ttlSeconds: 30 } });
    expect(endpoint?.actorToken()).toBe(second);
  });
});

describe('registering again', () => {
  it('with the same tools replaces the registration without announcing a change, and routes to the new one', async () => {
    const current = await gateway();
    const { registry, address } = current;
    const first = await toolService({ gatewayAddress: address, serviceName: 'restarted', tools: [sampleTool('alpha')], register: false });
    const second = await toolService({ gatewayAddress: address, serviceName: 'restarted', tools: [sampleTool('alpha')], register: false });
    const registrar = client(address);
    const token = await tokenOf(platform(), 'webhook-tools');
    const before = await registrar.register({ serviceName: 'restarted', callbackAddress: first.address, ttlSeconds: 30 }, bearer(token));
    if (!before.ok) throw new Error(before.details);
    const version = registry.catalog().version;
    const changes = announced(current.registry);

    const after = await registrar.register({ serviceName: 'restarted', callbackAddress: second.address, ttlSeconds: 30 }, bearer(token));
    if (!after.ok) throw new Error(after.details);

    expect(changes).toEqual([]);
    expect(registry.catalog().version).toBeGreaterThan(version);
    expect(registry.catalog().byName('alpha')?.service).toMatchObject({ registrationId: after.value.registrationId, callbackAddress: second.address });
    expect(registry.services()).toHaveLength(1);
    expect(await registrar.heartbeat(before.value.registrationId, bearer(token))).toMatchObject({ ok: false, code: 5 });
    expect(current.pool.openAddresses()).toEqual([second.address]);
  });

  it('with different tools announces the new list', async () => {
    const current = await gateway();
    const { address } = current;
    const first = await toolService({ gatewayAddress: address, serviceName: 'upgraded', tools: [sampleTool('alpha')], register: false });
    const second = await toolService({
      gatewayAddress: address,
      serviceName: 'upgraded',
      tools: [sampleTool('alpha', { description: 'Does alpha, better.' }), sampleTool('gamma')],
      register: false,
    });
    const registrar = client(address);
    const token = await tokenOf(platform(), 'webhook-tools');
    await registrar.register({ serviceName: 'upgraded', callbackAddress: first.address, ttlSeconds: 30 }, bearer(token));
    const changes = announced(current.registry);

    await registrar.register({ serviceName: 'upgraded', callbackAddress: second.address, ttlSeconds: 30 }, bearer(token));

    expect(changes.map(namesIn)).toEqual([['alpha', 'gamma']]);
    expect(changes[0]?.byName('alpha')?.description).toBe('Does alpha, better.');
  });

  it('under another app is another registration: both stay, each under its own app', async () => {
    const { registry, address } = await gateway();
    const registrar = client(address);
    for (const app of ['webhook-tools', 'fleet-insights'] as const) {
      // Each app's own process: one app's service may not be announced at another's address.
      const service = await toolService({ gatewayAddress: address, serviceName: 'reports', tools: [sampleTool('search')], register: false });
      const answer = await registrar.register(
        { serviceName: 'reports', callbackAddress: service.address, ttlSeconds: 30 },
        bearer(await tokenOf(platform(), app)),
      );
      expect(answer.ok).toBe(true);
    }

    // The pinned app keeps its tool's name; the other app's is prefixed with its key, collision or not.
    expect(namesIn(registry.catalog())).toEqual(['fleet-insights__search', 'search']);
    expect(registry.catalog().byName('fleet-insights__search')?.service.appClientId).toBe('fleet-insights');
  });
});

describe('tools of the same name in one app', () => {
  it('keep going to the service of the app that offered them first while it lives (its restarts too); a later service offering one gets a qualified name', async () => {
    const current = await gateway();
    const { registry, address } = current;
    // The later service's name sorts first: only the order of registration decides.
    const first = await toolService({ gatewayAddress: address, serviceName: 'svc-z', tools: [sampleTool('search'), sampleTool('only_z')], register: false });
    const later = await toolService({ gatewayAddress: address, serviceName: 'svc-a', tools: [sampleTool('search')], register: false });
    const registrar = client(address);
    const token = bearer(await tokenOf(platform(), 'webhook-tools'));
    const registered = async (serviceName: string, callbackAddress: string) => {
      const answer = await registrar.register({ serviceName, callbackAddress, ttlSeconds: 30 }, token);
      if (!answer.ok) throw new Error(answer.details);
      return answer.value.registrationId;
    };
    await registered('svc-z', first.address);
    expect(namesIn(registry.catalog())).toEqual(['only_z', 'search']);
    // Registration times are kept to the millisecond: the later one is later.
    await new Promise((resolve) => setTimeout(resolve, 5));

    const second = await registered('svc-a', later.address);
    expect(namesIn(registry.catalog())).toEqual(['only_z', 'search', 'webhook-tools__svc-a__search']);
    expect(registry.catalog().byName('search')).toMatchObject({ name: 'search', service: { serviceName: 'svc-z', callbackAddress: first.address } });
    expect(registry.catalog().byName('webhook-tools__svc-a__search')).toMatchObject({ service: { serviceName: 'svc-a', callbackAddress: later.address } });

    // The first service restarts (registers again, replacing its own): it keeps its place.
    const restarted = await registered('svc-z', first.address);
    expect(registry.catalog().byName('search')?.service.registrationId).toBe(restarted);

    // Deregistering the later one changes nothing of the first's; once the first is gone, the name is the later one's.
    await registrar.deregister(second, token);
    expect(namesIn(registry.catalog())).toEqual(['only_z', 'search']);
    await registered('svc-a', later.address);
    const changes = announced(current.registry);
    await registrar.deregister(restarted, token);
    expect(changes.map(namesIn)).toEqual([['search']]);
    expect(registry.catalog().byName('search')?.service.serviceName).toBe('svc-a');
  });
});
