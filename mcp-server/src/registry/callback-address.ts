// A registration's callback address as the gateway dials it: the host resolved to one address and
// the port, so that two spellings of one address (localhost:50051, 127.0.0.1:50051) are one address.
// Every address a name resolves to must lie within the networks the operator lets tool services be
// reached at (callback-networks.ts), and be loopback unless TLS or the operator trusts the network,
// since delegated tokens travel to it. Nothing is dialled before these checks.
import { lookup } from 'node:dns/promises';
import { isIPv6 } from 'node:net';
import { isLoopbackHost } from '@platform/tool-sdk/internal';
import type { CallbackNetworks } from './callback-networks.ts';
import { RegistryError } from './registry-errors.ts';

/** What a host resolves to; node:dns's lookup by default, a stand-in in tests. */
export type ResolveHost = (host: string) => Promise<readonly string[]>;

export const systemResolveHost: ResolveHost = async (host) => (await lookup(host, { all: true, order: 'ipv4first' })).map((entry) => entry.address);

const bracketed = (address: string) => (isIPv6(address) ? `[${address}]` : address);

export interface CallbackAddressRules {
  readonly resolveHost: ResolveHost;
  readonly grpcPlaintextOffLoopback: boolean;
  /** Where tool services may be reached (REGISTRY_CALLBACK_NETWORKS). */
  readonly networks: CallbackNetworks;
  /**
   * Under TLS the gateway dials the name a service registered, as given: its certificate is for that
   * name, not for the address it resolves to now. The name must still resolve within the networks.
   */
  readonly dialByName?: boolean;
}

/**
 * `host:port` as the gateway dials it: the host resolved (IPv4 first, IPv6 in brackets), or the name
 * as given with `dialByName`. Refuses a host that does not resolve, resolves outside the allowed
 * networks, or leaves loopback without TLS.
 */
export async function resolveCallbackAddress(callbackAddress: string, options: CallbackAddressRules): Promise<string> {
  const colon = callbackAddress.lastIndexOf(':');
  const host = callbackAddress.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = callbackAddress.slice(colon + 1);
  let addresses: readonly string[];
  try {
    addresses = await options.resolveHost(host.toLowerCase());
  } catch (error) {
    throw new RegistryError('INVALID_FIELD', `callback_address names a host that does not resolve (${JSON.stringify(host.slice(0, 80))})`, { cause: error });
  }
  const [first] = addresses;
  if (first === undefined) throw new RegistryError('INVALID_FIELD', `callback_address names a host that resolves to no address`);
  const outside = addresses.find((address) => !options.networks.allows(address));
  if (outside !== undefined) {
    throw new RegistryError(
      'CALLBACK_NETWORK_NOT_ALLOWED',
      `callback_address ${JSON.stringify(callbackAddress.slice(0, 120))} resolves to ${outside}, outside the networks tool services may be reached at ` +
        `(REGISTRY_CALLBACK_NETWORKS: ${options.networks.blocks.join(',')}); the gateway's operator must add its network there`,
    );
  }
  if (!options.grpcPlaintextOffLoopback && !addresses.every((address) => isLoopbackHost(bracketed(address)))) {
    throw new RegistryError(
      'INVALID_FIELD',
      `callback_address must resolve to loopback addresses only (${JSON.stringify(host.slice(0, 80))} does not): the gateway sends delegated tokens to it without TLS`,
    );
  }
  return `${bracketed(options.dialByName ? host.toLowerCase() : first)}:${port}`;
}
