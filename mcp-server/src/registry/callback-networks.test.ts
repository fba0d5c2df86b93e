// Where tool services may be reached (REGISTRY_CALLBACK_NETWORKS): loopback unless the operator
// lists more; a registration naming an address anywhere else is refused with FAILED_PRECONDITION,
// naming the setting, before the gateway connects to it at all.
import { createServer, type Server } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { seedWithToolPublishers, startPlatform } from '@platform/dev-platform/testing';
import { startedForTests } from '@platform/tool-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { bearer, registryClient, startGateway, tokenOf } from '../../test/registry-harness.ts';
import { createCallbackNetworks, loopbackNetworks } from './callback-networks.ts';
import type { ToolRegistryOptions } from './tool-registry.ts';

const platform = startedForTests(() => startPlatform({ seed: seedWithToolPublishers('fleet-insights') }));

const started: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const part of started.splice(0).reverse()) await part.close();
});

/** A listener on `host` that counts the connections made to it: the gateway must make none. */
async function countingListener(host: string) {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  started.push({
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  });
  return { address: `${host}:${(server.address() as { port: number }).port}`, connections: () => connections };
}

async function registerAt(overrides: Partial<ToolRegistryOptions>, callbackAddress: string) {
  const gateway = await startGateway(platform().issuer, overrides);
  started.push(gateway);
  const registrar = registryClient(gateway.address);
  started.push(registrar);
  const answer = await registrar.register({ serviceName: 'insights', callbackAddress, ttlSeconds: 30 }, bearer(await tokenOf(platform(), 'fleet-insights')));
  return { gateway, answer };
}

describe('createCallbackNetworks', () => {
  it('allows loopback by default and nothing else; an IPv4 address written as IPv6 is judged as IPv4', () => {
    const networks = createCallbackNetworks(loopbackNetworks);
    expect(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'].map((address) => networks.allows(address))).toEqual([true, true, true, true]);
    expect(['10.0.0.7', '169.254.169.254', '0.0.0.0', '::', 'fd00::1', '::ffff:10.0.0.7', 'localhost'].some((address) => networks.allows(address))).toBe(false);
    const own = createCallbackNetworks(['10.20.0.0/16', 'fd00:1::/32']);
    expect([own.allows('10.20.3.4'), own.allows('10.21.0.1'), own.allows('fd00:1::7'), own.allows('127.0.0.1')]).toEqual([true, false, true, false]);
  });

  it.each([
    ['10.0.0.0', 'is not a CIDR block'],
    ['tools.internal/24', 'does not start with an IP address'],
    ['10.0.0.0/33', 'prefix length outside 0-32'],
    ['fd00::/129', 'prefix length outside 0-128'],
  ])('refuses %s, naming it', (block, message) => {
    expect(() => createCallbackNetworks([block])).toThrow(message);
  });

  it('refuses an empty list', () => {
    expect(() => createCallbackNetworks([])).toThrow('at least one network');
  });
});

describe('a registration whose callback address is outside the allowed networks', () => {
  it('is FAILED_PRECONDITION naming REGISTRY_CALLBACK_NETWORKS, with no connection made to it and a log line saying why', async () => {
    // 127.0.0.2 is loopback, so only the networks' rule can refuse it here.
    const listener = await countingListener('127.0.0.2');
    const { gateway, answer } = await registerAt({ callbackNetworks: ['127.0.0.1/32'] }, listener.address);

    expect(answer).toMatchObject({ ok: false, code: grpc.status.FAILED_PRECONDITION });
    expect(answer.ok ? '' : answer.details).toContain(
      `resolves to 127.0.0.2, outside the networks tool services may be reached at (REGISTRY_CALLBACK_NETWORKS: 127.0.0.1/32)`,
    );
    expect(listener.connections()).toBe(0);
    expect(gateway.pool.openAddresses()).toEqual([]);
    expect(gateway.registry.services()).toEqual([]);
    const refusal = gateway.logs.lines.find((line) => line.includes('Register refused'));
    expect(refusal).toContain('CALLBACK_NETWORK_NOT_ALLOWED');
    expect(refusal).toContain('REGISTRY_CALLBACK_NETWORKS');
  });

  it('is refused by default even where plaintext may leave loopback (a private address), and taken once the operator lists its network', async () => {
    // 0.0.0.0 reaches this machine's listeners: a stand-in for an address of a private network.
    const listener = await countingListener('0.0.0.0');
    const port = listener.address.slice(listener.address.lastIndexOf(':') + 1);
    const refused = await registerAt({ grpcPlaintextOffLoopback: true }, `0.0.0.0:${port}`);
    expect(refused.answer).toMatchObject({ ok: false, code: grpc.status.FAILED_PRECONDITION });
    expect(listener.connections()).toBe(0);

    // Listed, it is dialled (nothing answers ListTools there: UNAVAILABLE, after a connection).
    const listed = await registerAt({ grpcPlaintextOffLoopback: true, callbackNetworks: ['0.0.0.0/32'] }, `0.0.0.0:${port}`);
    expect(listed.answer).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
    expect(listener.connections()).toBeGreaterThan(0);
  });

  it('refuses a gateway built with a network that is not a CIDR block, naming the option', async () => {
    await expect(startGateway(platform().issuer, { callbackNetworks: ['10.0.0.0/8', 'tools.internal'] })).rejects.toThrow(
      'createToolRegistry: callbackNetworks: "tools.internal" is not a CIDR block',
    );
  });
});
