// Callback addresses are compared as the gateway dials them (the host resolved, the port), and no
// app can lock another out of its own address: a rival that registers the real service's address,
// under its own spelling or first after a restart, neither blocks the real service nor gets its
// names; a call through the rival's names carries tokens delegated to the rival, which the real
// service refuses.
import * as grpc from '@grpc/grpc-js';
import { seedWithToolPublishers, startPlatform } from '@platform/dev-platform/testing';
import { rejectionOf, startedForTests, until } from '@platform/tool-sdk/testing';
import type { ServingToolApp } from '@platform/tool-sdk/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { bearer, registryClient, sampleTool, startGateway, startToolService, tokenOf, type Gateway } from '../../test/registry-harness.ts';
import { resolveCallbackAddress, type ResolveHost } from './callback-address.ts';
import { createCallbackNetworks } from './callback-networks.ts';
import { RegistryError } from './registry-errors.ts';

const platform = startedForTests(() => startPlatform({ seed: seedWithToolPublishers('fleet-insights') }));

const started: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const part of started.splice(0).reverse()) await part.close();
});

async function gateway(): Promise<Gateway> {
  const running = await startGateway(platform().issuer);
  started.push(running);
  return running;
}

async function realService(gatewayAddress: string, register: boolean): Promise<ServingToolApp> {
  const serving = await startToolService({ platform: platform(), gatewayAddress, serviceName: 'webhook-tools', tools: [sampleTool('whoami')], register });
  started.push({ close: () => serving.close(1_000) });
  return serving;
}

async function rivalRegisters(at: Gateway, callbackAddress: string) {
  const registrar = registryClient(at.address);
  started.push(registrar);
  return registrar.register({ serviceName: 'webhook-tools', callbackAddress, ttlSeconds: 30 }, bearer(await tokenOf(platform(), 'fleet-insights')));
}

describe("a rival naming the real service's callback address", () => {
  it('under another spelling (localhost for 127.0.0.1) is one address to the gateway, and renames nothing', async () => {
    const at = await gateway();
    const real = await realService(at.address, true);
    await until(() => at.registry.catalog().byName('whoami') !== undefined, 'the real service registered');
    const port = real.address.slice(real.address.lastIndexOf(':') + 1);

    expect(await rivalRegisters(at, `localhost:${port}`)).toMatchObject({ ok: true });

    const services = at.registry.services();
    expect(services.map((service) => [service.appClientId, service.callbackAddress]).sort()).toEqual([
      ['fleet-insights', real.address],
      ['webhook-tools', real.address],
    ]);
    expect(at.registry.catalog().byName('whoami')?.service.appClientId).toBe('webhook-tools');
    expect(at.pool.openAddresses()).toEqual([real.address]);
  });

  it('first, after a gateway restart, does not lock the real service out: it registers as ever', async () => {
    const at = await gateway();
    const real = await realService('127.0.0.1:9', false);
    expect(await rivalRegisters(at, real.address)).toMatchObject({ ok: true });

    const registrar = registryClient(at.address);
    started.push(registrar);
    const answer = await registrar.register(
      { serviceName: 'webhook-tools', callbackAddress: real.address, ttlSeconds: 30 },
      bearer(await tokenOf(platform(), 'webhook-tools')),
    );

    expect(answer).toMatchObject({ ok: true });
    expect(at.registry.catalog().byName('whoami')?.service).toMatchObject({ appClientId: 'webhook-tools', callbackAddress: real.address });
    expect(at.registry.catalog().byName('fleet-insights__whoami')?.service.appClientId).toBe('fleet-insights');
  });
});

describe('resolveCallbackAddress', () => {
  const resolving =
    (answers: Record<string, readonly string[]>): ResolveHost =>
    (host) =>
      answers[host] ? Promise.resolve(answers[host]) : Promise.reject(new Error(`ENOTFOUND ${host}`));
  // Every network allowed: these are the loopback rule's cases (callback-networks.test.ts has the networks').
  const networks = createCallbackNetworks(['0.0.0.0/0', '::/0']);
  const strict = (resolveHost: ResolveHost) => ({ resolveHost, grpcPlaintextOffLoopback: false, networks });

  it('gives the address the gateway dials: IPv4 first, IPv6 in brackets, the port kept', async () => {
    expect(await resolveCallbackAddress('LocalHost:50051', strict(resolving({ localhost: ['127.0.0.1', '::1'] })))).toBe('127.0.0.1:50051');
    expect(await resolveCallbackAddress('[::1]:50051', strict(resolving({ '::1': ['::1'] })))).toBe('[::1]:50051');
  });

  it('refuses a name any of whose addresses leaves loopback, unless the operator trusts the network', async () => {
    const resolveHost = resolving({ localhost: ['127.0.0.1', '10.0.0.7'], 'tools.internal': ['10.0.0.8'] });
    const error = await rejectionOf(resolveCallbackAddress('localhost:50051', strict(resolveHost)), RegistryError);

    expect(error.code).toBe('INVALID_FIELD');
    expect(error.status).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.message).toContain('callback_address must resolve to loopback addresses only');
    expect(await resolveCallbackAddress('tools.internal:50051', { resolveHost, grpcPlaintextOffLoopback: true, networks })).toBe('10.0.0.8:50051');
  });

  it('refuses a host that does not resolve, naming the field', async () => {
    const error = await rejectionOf(
      resolveCallbackAddress('nowhere.invalid:50051', { resolveHost: resolving({}), grpcPlaintextOffLoopback: true, networks }),
      RegistryError,
    );

    expect(error.message).toBe('callback_address names a host that does not resolve ("nowhere.invalid")');
  });
});
