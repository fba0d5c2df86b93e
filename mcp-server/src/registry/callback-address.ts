// A registration's callback address as the gateway dials it: the host resolved to one address and
// the port, so that two spellings of one address (localhost:50051, 127.0.0.1:50051) are one address.
// Every address a name resolves to must be loopback unless the operator trusts the network, since
// delegated tokens travel to it without TLS.
import { lookup } from 'node:dns/promises';
import { isIPv6 } from 'node:net';
import { isLoopbackHost } from '@platform/shared';
import { RegistryError } from './registry-errors.ts';

/** What a host resolves to; node:dns's lookup by default, a stand-in in tests. */
export type ResolveHost = (host: string) => Promise<readonly string[]>;

export const systemResolveHost: ResolveHost = async (host) => (await lookup(host, { all: true, order: 'ipv4first' })).map((entry) => entry.address);

/**
 * Under TLS the gateway dials the name a service registered, as given: its certificate is for that
 * name, not for the address it resolves to now. The name must still resolve.
 */
export const dialledByName =
  (resolveHost: ResolveHost): ResolveHost =>
  async (host) => {
    await resolveHost(host);
    return [host];
  };

const bracketed = (address: string) => (isIPv6(address) ? `[${address}]` : address);

/** `host:port` with the host resolved (IPv4 first, IPv6 in brackets); refuses a host that does not resolve or leaves loopback. */
export async function resolveCallbackAddress(
  callbackAddress: string,
  options: { readonly resolveHost: ResolveHost; readonly grpcPlaintextOffLoopback: boolean },
): Promise<string> {
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
  if (!options.grpcPlaintextOffLoopback && !addresses.every((address) => isLoopbackHost(bracketed(address)))) {
    throw new RegistryError(
      'INVALID_FIELD',
      `callback_address must resolve to loopback addresses only (${JSON.stringify(host.slice(0, 80))} does not): the gateway sends delegated tokens to it without TLS`,
    );
  }
  return `${bracketed(first)}:${port}`;
}
