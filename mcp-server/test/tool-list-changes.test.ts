// The catalog follows the tool services: a service that registers brings its tools, announced to
// open sessions (the GET stream, 2025-11-25) and listen streams (2026-07-28) with
// notifications/tools/list_changed; a registration that is not renewed expires and its tools
// disappear, announced the same way. The gateway's registrations expire on a manual clock, and the
// probes' heartbeats wait on it: the tests move it instead of waiting.
import * as grpc from '@grpc/grpc-js';
import { appToken, devSecrets } from '@platform/dev-platform/testing';
import { loadRegistryProto, type RegisterResponse__Output } from '@platform/proto';
import { createLogger } from '@platform/tool-sdk';
import { heartbeatDelay } from '@platform/tool-sdk/internal';
import { defineTool } from '@platform/tool-sdk/tools';
import { z } from 'zod';
import { manualClock } from '@platform/tool-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { eras, stackForTests, startProbeService, until, type ProbeService, toolAppAt } from './harness.ts';

const clock = manualClock(Date.now());
const stack = stackForTests({ clock });
let probe: ProbeService | undefined;
afterEach(async () => {
  await probe?.close();
  probe = undefined;
});

/** Registers `address` as service `name` of fleet-insights for `ttlSeconds`, with no heartbeat after. */
async function registerOnce(name: string, address: string, ttlSeconds: number): Promise<RegisterResponse__Output> {
  const registry = new (loadRegistryProto().ToolRegistry)(stack().registryAddress, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${await appToken(stack().issuer, 'fleet-insights', devSecrets.FLEET_INSIGHTS_CLIENT_SECRET)}`);
  try {
    return await new Promise((resolve, reject) => {
      registry.Register({ serviceName: name, callbackAddress: address, ttlSeconds }, metadata, (error, answer) => {
        if (error || !answer) reject(error ?? new Error('no answer'));
        else resolve(answer);
      });
    });
  } finally {
    registry.close();
  }
}

describe.each(eras)('on the %s revision', (era) => {
  it('announces a new service’s tools, and their removal when its registration expires', async () => {
    const client = await stack().connect('oscar', era);
    let changes = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changes += 1;
    });
    if (era === 'modern') {
      const subscription = await client.listen({ toolsListChanged: true });
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    } else {
      await until(() => stack().gateway.sessions().streams > 0, 'the session’s GET stream is open');
    }
    const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
    const beacon = `fleet-insights__beacon_${era}`;
    expect(await names()).not.toContain(beacon);

    probe = await startProbeService(stack(), { serviceName: `beacons-${era}`, tools: [`beacon_${era}`], register: false });
    const granted = await registerOnce(`beacons-${era}`, probe.serving.address, 1);
    expect(granted.ttlSeconds).toBe(1);
    await until(() => changes >= 1, 'list_changed announced the new tools');
    expect(await names()).toContain(beacon);
    const called = await client.callTool({ name: beacon, arguments: { text: 'ping' } });
    expect(called.isError).toBeFalsy();

    // No heartbeat: the registration expires, its tools disappear rather than fail.
    clock.advance(999);
    expect(stack().gateway.registry.catalog().byName(beacon)).toBeDefined();
    clock.advance(1);
    await until(() => changes >= 2, 'list_changed announced the expiry');
    expect(await names()).not.toContain(beacon);
    await expect(client.callTool({ name: beacon, arguments: {} })).rejects.toThrow(/not found/);
  });

  it('announces a tool a running service adds, and the one it withdraws, without a restart', async () => {
    const client = await stack().connect('oscar', era);
    let changes = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changes += 1;
    });
    if (era === 'modern') await client.listen({ toolsListChanged: true });
    else await until(() => stack().gateway.sessions().streams > 0, 'the session’s GET stream is open');
    const app = toolAppAt(stack(), 'fleet-insights', `growing-${era}`, { logger: createLogger({ name: 'growing', level: 'silent' }), timers: clock });
    const tool = (name: string) =>
      defineTool({ name, title: name, description: `Answers ${name}.`, inputSchema: z.strictObject({}), handler: () => ({ said: name }) });
    app.registerTools([tool(`first_${era}`)]);
    const initial = changes;
    const serving = await app.serve();
    try {
      await until(() => stack().gateway.registry.catalog().byName(`fleet-insights__first_${era}`) !== undefined, 'the service registered');
      // Its announcement too, which may still be on its way once the catalog has the tool: counted
      // after this point, it would pass for the next change's.
      await until(() => changes > initial, 'list_changed announced the registration');
      const before = changes;
      app.registerTools([tool(`second_${era}`)]);
      await until(() => changes > before, 'list_changed announced the added tool');
      const names = async () => (await client.listTools()).tools.map((listed) => listed.name);
      expect(await names()).toEqual(expect.arrayContaining([`fleet-insights__first_${era}`, `fleet-insights__second_${era}`]));
      expect((await client.callTool({ name: `fleet-insights__second_${era}`, arguments: {} })).structuredContent).toEqual({ said: `second_${era}` });

      const added = changes;
      app.removeTools([`first_${era}`]);
      await until(() => changes > added, 'list_changed announced the withdrawn tool');
      expect(await names()).not.toContain(`fleet-insights__first_${era}`);
      await expect(client.callTool({ name: `fleet-insights__first_${era}`, arguments: {} })).rejects.toThrow(/not found/);
    } finally {
      await serving.close();
    }
  });

  it('keeps a service that heartbeats, and drops its tools at once when it deregisters', async () => {
    const client = await stack().connect('vera', era);
    const steady = await startProbeService(stack(), { serviceName: `steady-${era}`, tools: [`steady_${era}`], ttlSeconds: 2, timers: clock });
    probe = steady;
    await until(() => steady.serving.registration?.state.grantedTtlSeconds === 2, 'the service registered');
    // Four heartbeats a third of the time to live apart: past it on the clock, and still listed.
    for (let heartbeat = 1; heartbeat <= 4; heartbeat += 1) {
      clock.advance(heartbeatDelay(2));
      await until(() => steady.serving.registration?.state.heartbeats === heartbeat, `heartbeat ${heartbeat}`);
    }
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain(steady.exposed(`steady_${era}`));
    await probe.close();
    probe = undefined;
    expect(
      stack()
        .gateway.registry.catalog()
        .byName(steady.exposed(`steady_${era}`)),
    ).toBeUndefined();
  });
});

describe('another app offering a tool of the webhook tools’ name', () => {
  it('lists it under its app’s prefix, and leaves the webhook tools’ own name to them', async () => {
    probe = await startProbeService(stack(), { serviceName: 'webhook-twin', tools: ['whoami'] });
    await until(() => stack().gateway.registry.catalog().byName('fleet-insights__whoami') !== undefined, 'the twin registered');
    const client = await stack().connect('oscar', 'legacy');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['whoami', 'fleet-insights__whoami']));
    const result = await client.callTool({ name: 'fleet-insights__whoami', arguments: {} });
    expect(result.structuredContent).toMatchObject({ callerId: 'u-oscar' });
    expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toMatchObject({ userId: 'u-oscar' });
  });
});
