// How often one source may register a client through dynamic client registration: a fixed window
// of a minute per source network, so that one host cannot fill the client store or keep the
// platform busy writing it. A source is a network, not an address: the whole loopback range is one
// source (127.0.0.2 is the same machine as 127.0.0.1), an IPv4 address counts for its /24 and an
// IPv6 one for its /64, so cycling through the addresses a host holds buys no more registrations.
// Sources are remembered in a bounded cache.
import { isIPv4, isIPv6 } from 'node:net';
import { LRUCache } from 'lru-cache';
import type { Clock } from '@platform/tool-sdk';
import { systemClock } from '@platform/tool-sdk/internal';

/** Seconds the source must wait before its next registration; undefined when it may register now (and it is counted). */
export type RegistrationRate = (address: string) => number | undefined;

const windowMs = 60_000;

/** The eight 16-bit groups of an IPv6 address (zone dropped, a dotted IPv4 tail read as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%', 1)[0] ?? '';
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left = '', right] = text.split('::');
  const head = left === '' ? [] : left.split(':');
  const tail = right === undefined || right === '' ? [] : right.split(':');
  const gap = right === undefined ? 0 : 8 - head.length - tail.length;
  return [...head, ...new Array<string>(gap).fill('0'), ...tail].map((group) => parseInt(group, 16));
}

function ipv4Source(address: string): string {
  return address.startsWith('127.') ? 'loopback' : `${address.split('.').slice(0, 3).join('.')}.0/24`;
}

/** The network `address` (a socket's remote address) is counted against. */
export function registrationSource(address: string): string {
  if (isIPv4(address)) return ipv4Source(address);
  if (!isIPv6(address)) return address;
  const groups = ipv6Groups(address);
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  // An IPv4-mapped address (::ffff:127.0.0.1) is its IPv4 address.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return ipv4Source(`${g6 >> 8}.${g6 & 0xff}.${g7 >> 8}.${g7 & 0xff}`);
  if (groups.slice(0, 7).every((group) => group === 0) && g7 === 1) return 'loopback';
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

export function createRegistrationRate(perMinute: number, clock: Clock = systemClock): RegistrationRate {
  const windows = new LRUCache<string, { start: number; count: number }>({ max: 10_000 });
  return (address) => {
    const source = registrationSource(address);
    const now = clock();
    let window = windows.get(source);
    if (!window || now - window.start >= windowMs) windows.set(source, (window = { start: now, count: 0 }));
    if (window.count >= perMinute) return Math.max(1, Math.ceil((window.start + windowMs - now) / 1000));
    window.count += 1;
    return undefined;
  };
}
