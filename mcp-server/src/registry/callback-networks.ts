// The networks tool services may be reached at (REGISTRY_CALLBACK_NETWORKS): an operator's list of
// CIDR blocks, loopback by default. A registration whose callback address resolves to anything
// outside them is refused before the gateway connects anywhere, so a publisher cannot point the
// gateway (and the delegated tokens it sends) at an address of the operator's private network.
import { BlockList, isIP } from 'node:net';

export interface CallbackNetworks {
  /** The blocks as given, for messages and logs. */
  readonly blocks: readonly string[];
  /** Whether the IP address (no brackets) lies within one of the blocks. */
  allows(address: string): boolean;
}

/** Loopback, IPv4 and IPv6: the default, where `npm start` runs its tool service. */
export const loopbackNetworks: readonly string[] = Object.freeze(['127.0.0.0/8', '::1/128']);

/** The problem with one CIDR block, or undefined when it is one (`10.0.0.0/8`, `fd00::/8`, `192.168.1.7/32`). */
export function cidrProblem(block: string): string | undefined {
  const slash = block.indexOf('/');
  if (slash < 0) return `${JSON.stringify(block)} is not a CIDR block (address/prefix, such as 10.0.0.0/8)`;
  const family = isIP(block.slice(0, slash));
  const prefix = block.slice(slash + 1);
  if (family === 0) return `${JSON.stringify(block)} does not start with an IP address`;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128)) {
    return `${JSON.stringify(block)} has a prefix length outside 0-${family === 4 ? 32 : 128}`;
  }
  return undefined;
}

/** Builds the check of `blocks`; throws naming the first block that is not a CIDR block. */
export function createCallbackNetworks(blocks: readonly string[]): CallbackNetworks {
  if (blocks.length === 0) throw new TypeError('createCallbackNetworks: at least one network is needed (the default is loopback)');
  const list = new BlockList();
  for (const block of blocks) {
    const problem = cidrProblem(block);
    if (problem) throw new TypeError(`createCallbackNetworks: ${problem}`);
    const slash = block.indexOf('/');
    const network = block.slice(0, slash);
    list.addSubnet(network, Number(block.slice(slash + 1)), isIP(network) === 4 ? 'ipv4' : 'ipv6');
  }
  return Object.freeze({
    blocks: Object.freeze([...blocks]),
    allows(address: string) {
      const family = isIP(address);
      if (family === 0) return false;
      // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is.
      const mapped = family === 6 ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] : undefined;
      return mapped ? list.check(mapped, 'ipv4') : list.check(address, family === 4 ? 'ipv4' : 'ipv6');
    },
  });
}
