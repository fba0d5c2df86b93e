// A rival tool publisher (fleet-insights) announcing the webhook tools' service name and tool names
// never gets their names: not while the real service lives, not after it deregisters or expires,
// not after a gateway restart where the rival registers first. Real services on the SDK, the real
// dev platform, the registry on loopback.
import { seedWithToolPublishers, startPlatform } from '@platform/dev-platform/testing';
import { startedForTests } from '@platform/tool-sdk/testing';
import type { ServingToolApp } from '@platform/tool-sdk/tools';
import { describe, expect, it } from 'vitest';
import type { ToolCatalog } from '../remote-tools.ts';
import { bearer, sampleTool, startToolService, tokenOf, type Gateway, type SeededApp, startedPartsForTests } from '../../test/registry-harness.ts';

const platform = startedForTests(() => startPlatform({ seed: seedWithToolPublishers('fleet-insights') }));

const { started, gateway, client } = startedPartsForTests(platform);

/** A service named webhook-tools with the real tools' names, unregistered until `register` is called. */
async function webhookToolsLookalike(): Promise<ServingToolApp> {
  const serving = await startToolService({
    platform: platform(),
    gatewayAddress: '127.0.0.1:9',
    serviceName: 'webhook-tools',
    tools: [sampleTool('whoami'), sampleTool('create_webhook')],
    register: false,
  });
  started.push({ close: () => serving.close(1_000) });
  return serving;
}

async function register(at: Gateway, app: SeededApp, service: ServingToolApp, ttlSeconds = 30): Promise<string> {
  const registrar = client(at.address);
  const answer = await registrar.register(
    { serviceName: 'webhook-tools', callbackAddress: service.address, ttlSeconds },
    bearer(await tokenOf(platform(), app)),
  );
  if (!answer.ok) throw new Error(answer.details);
  return answer.value.registrationId;
}

/** Which app each exposed name reaches. */
const owners = (catalog: ToolCatalog) => Object.fromEntries(catalog.tools.map((tool) => [tool.exposedName, tool.service.appClientId]));

describe('a rival publisher with the same service name and tool names', () => {
  it('gets names of its own while the real service lives; the real names still reach the real app', async () => {
    const at = await gateway();
    await register(at, 'webhook-tools', await webhookToolsLookalike());
    await register(at, 'fleet-insights', await webhookToolsLookalike());

    expect(owners(at.registry.catalog())).toEqual({
      whoami: 'webhook-tools',
      create_webhook: 'webhook-tools',
      'fleet-insights__whoami': 'fleet-insights',
      'fleet-insights__create_webhook': 'fleet-insights',
    });
  });

  it('does not inherit the real names when the real service deregisters: they are gone, not moved', async () => {
    const at = await gateway();
    const real = await register(at, 'webhook-tools', await webhookToolsLookalike());
    await register(at, 'fleet-insights', await webhookToolsLookalike());
    const registrar = client(at.address);

    expect(await registrar.deregister(real, bearer(await tokenOf(platform(), 'webhook-tools')))).toMatchObject({ ok: true });

    expect(at.registry.catalog().byName('whoami')).toBeUndefined();
    expect(at.registry.catalog().byName('create_webhook')).toBeUndefined();
    expect(owners(at.registry.catalog())).toEqual({ 'fleet-insights__whoami': 'fleet-insights', 'fleet-insights__create_webhook': 'fleet-insights' });
  });

  it('registering first after a gateway restart still gets only its own names, and the real service its own', async () => {
    const before = await gateway();
    await register(before, 'webhook-tools', await webhookToolsLookalike());
    const namesBefore = owners(before.registry.catalog());
    await before.close();

    const after = await gateway();
    await register(after, 'fleet-insights', await webhookToolsLookalike());
    expect(owners(after.registry.catalog())).toEqual({ 'fleet-insights__whoami': 'fleet-insights', 'fleet-insights__create_webhook': 'fleet-insights' });
    await register(after, 'webhook-tools', await webhookToolsLookalike());

    expect(owners(after.registry.catalog())).toMatchObject(namesBefore);
    expect(namesBefore).toEqual({ whoami: 'webhook-tools', create_webhook: 'webhook-tools' });
  });
});
