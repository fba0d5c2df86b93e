// Whether a host is this machine's loopback: the only place plain http is accepted.
import { isIPv4 } from 'node:net';

export function isLoopbackHost(hostname: string): boolean {
  // A real IPv4 address only: 127.999.999.999 is no address, so a resolver would look it up by name.
  return hostname === 'localhost' || hostname === '[::1]' || (isIPv4(hostname) && hostname.startsWith('127.'));
}
