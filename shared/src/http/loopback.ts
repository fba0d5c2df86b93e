// Whether a host is this machine's loopback: the only place plain http is accepted.
import { isIPv4 } from 'node:net';

/** True for a loopback host name or address (`localhost`, `127.0.0.0/8`, `::1`). */
export function isLoopbackHost(hostname: string): boolean {
  // A real IPv4 address only: 127.999.999.999 is no address, so a resolver would look it up by name.
  return hostname === 'localhost' || hostname === '[::1]' || (isIPv4(hostname) && hostname.startsWith('127.'));
}

/**
 * The address this machine reaches a server listening on `host`:`port` at, for logs and
 * documents: a wildcard bind (0.0.0.0, ::) by its loopback, an IPv6 address in brackets.
 */
export function localOrigin(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' || host === '[::]' ? '::1' : host;
  return `http://${reachable.includes(':') && !reachable.startsWith('[') ? `[${reachable}]` : reachable}:${port}`;
}
