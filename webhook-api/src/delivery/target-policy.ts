// Which addresses a delivery may connect to, and an undici connector that enforces it on the address
// each connection actually uses: literals before connecting, every resolved address in the lookup,
// and the socket's remote address once connected, so neither DNS rebinding nor a second resolution
// between a check and the connection can reach a private network.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { buildConnector } from 'undici';

/** Why an address is refused as a delivery target. */
export type AddressClass =
  | 'cloud-metadata'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'carrier-grade-nat'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'unique-local'
  | 'site-local'
  | 'local-nat64'
  | 'reserved'
  | 'not-an-address';

export interface RefusedAddress {
  readonly addressClass: AddressClass;
  /** "a loopback address", "an IPv4-mapped form of 10.0.0.1, a private address": reads after "<address>, ". */
  readonly description: string;
}

const classNames: Record<AddressClass, string> = {
  'cloud-metadata': 'a cloud metadata address',
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  'carrier-grade-nat': 'a carrier-grade NAT (100.64.0.0/10) address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  documentation: 'a documentation address',
  benchmarking: 'a benchmarking address',
  'unique-local': 'a unique-local (fc00::/7) address',
  'site-local': 'a site-local address',
  'local-nat64': 'a local-use NAT64 address',
  reserved: 'a reserved address',
  'not-an-address': 'not an IP address',
};

type Ranges = readonly (readonly [AddressClass, readonly string[]])[];

// Checked in order: the first match names the class. Metadata endpoints come first so the message says what they are.
const ipv4Ranges: Ranges = [
  // AWS/GCP/Azure IMDS, AWS ECS task and EKS pod identity, Alibaba, Azure WireServer, Oracle OCI.
  ['cloud-metadata', ['169.254.169.254/32', '169.254.170.2/32', '169.254.170.23/32', '100.100.100.200/32', '168.63.129.16/32', '192.0.0.192/32']],
  ['unspecified', ['0.0.0.0/8']],
  ['loopback', ['127.0.0.0/8']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']],
  ['link-local', ['169.254.0.0/16']],
  ['carrier-grade-nat', ['100.64.0.0/10']],
  ['documentation', ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24']],
  ['benchmarking', ['198.18.0.0/15']],
  ['multicast', ['224.0.0.0/4']],
  ['broadcast', ['255.255.255.255/32']],
  ['reserved', ['192.0.0.0/24', '192.88.99.0/24', '240.0.0.0/4']],
];

const ipv6Ranges: Ranges = [
  // AWS IMDS and EKS pod identity over IPv6, GCP's metadata server over IPv6.
  ['cloud-metadata', ['fd00:ec2::254/128', 'fd00:ec2::23/128', 'fd20:ce::254/128']],
  ['unspecified', ['::/128']],
  ['loopback', ['::1/128']],
  ['local-nat64', ['64:ff9b:1::/48']],
  ['unique-local', ['fc00::/7']],
  ['link-local', ['fe80::/10']],
  ['site-local', ['fec0::/10']],
  ['multicast', ['ff00::/8']],
  ['documentation', ['2001:db8::/32', '3fff::/20']],
  ['benchmarking', ['2001:2::/48']],
];

function parsed(ranges: Ranges): readonly (readonly [AddressClass, [ipaddr.IPv4 | ipaddr.IPv6, number][]])[] {
  return ranges.map(([name, cidrs]) => [name, cidrs.map((cidr) => ipaddr.parseCIDR(cidr))] as const);
}

const ipv4Table = parsed(ipv4Ranges);
const ipv6Table = parsed(ipv6Ranges);
const globalUnicast = ipaddr.parseCIDR('2000::/3');

function firstMatch(address: ipaddr.IPv4 | ipaddr.IPv6, table: ReturnType<typeof parsed>): AddressClass | undefined {
  return table.find(([, cidrs]) => cidrs.some((cidr) => address.match(cidr)))?.[0];
}

function refusedIPv4(address: ipaddr.IPv4): RefusedAddress | undefined {
  const addressClass = firstMatch(address, ipv4Table);
  if (addressClass !== undefined) return { addressClass, description: classNames[addressClass] };
  // Anything else ipaddr.js does not call unicast (AS112, AMT, ranges added later) is refused too.
  if (address.range() !== 'unicast') return { addressClass: 'reserved', description: classNames.reserved };
  return undefined;
}

function ipv4FromBits(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The IPv4 addresses an IPv6 address carries, and the name of the form, for the forms that route to them. */
function embeddedIPv4(address: ipaddr.IPv6): { form: string; addresses: ipaddr.IPv4[] } | undefined {
  const p = address.parts;
  const [p0 = 0, p1 = 0, p2 = 0, p3 = 0, p4 = 0, p5 = 0, p6 = 0, p7 = 0] = p;
  switch (address.range()) {
    case 'ipv4Mapped':
      return { form: 'an IPv4-mapped form', addresses: [ipv4FromBits(p6, p7)] };
    case 'rfc6145':
      return { form: 'an IPv4-translated form', addresses: [ipv4FromBits(p6, p7)] };
    case 'rfc6052':
      return { form: 'a NAT64 form', addresses: [ipv4FromBits(p6, p7)] };
    case '6to4':
      return { form: 'a 6to4 form', addresses: [ipv4FromBits(p1, p2)] };
    case 'teredo':
      // The Teredo server in bits 32-63, the client's public address inverted in the last 32 bits.
      return { form: 'a Teredo form', addresses: [ipv4FromBits(p2, p3), ipv4FromBits(~p6 & 0xffff, ~p7 & 0xffff)] };
    default:
      // IPv4-compatible (::a.b.c.d, deprecated): :: and ::1 are matched before this is asked.
      if (p0 === 0 && p1 === 0 && p2 === 0 && p3 === 0 && p4 === 0 && p5 === 0) return { form: 'an IPv4-compatible form', addresses: [ipv4FromBits(p6, p7)] };
      return undefined;
  }
}

function refusedIPv6(address: ipaddr.IPv6): RefusedAddress | undefined {
  const addressClass = firstMatch(address, ipv6Table);
  if (addressClass === 'local-nat64') {
    // It carries an IPv4 address in its last 32 bits (RFC 8215): a metadata one is named so, and stays refused where private targets are allowed.
    const ipv4 = ipv4FromBits(address.parts[6] ?? 0, address.parts[7] ?? 0);
    if (refusedIPv4(ipv4)?.addressClass === 'cloud-metadata')
      return { addressClass: 'cloud-metadata', description: `a local-use NAT64 form of ${ipv4.toString()}, ${classNames['cloud-metadata']}` };
  }
  if (addressClass !== undefined) return { addressClass, description: classNames[addressClass] };
  const embedded = embeddedIPv4(address);
  if (embedded !== undefined) {
    for (const ipv4 of embedded.addresses) {
      const refused = refusedIPv4(ipv4);
      if (refused !== undefined) return { addressClass: refused.addressClass, description: `${embedded.form} of ${ipv4.toString()}, ${refused.description}` };
    }
    return undefined;
  }
  // Outside 2000::/3 nothing is global unicast; inside it, ipaddr.js knows the special-purpose blocks (2001::/23 and others).
  if (!address.match(globalUnicast) || address.range() !== 'unicast') return { addressClass: 'reserved', description: classNames.reserved };
  return undefined;
}

/** Why `address` (an IP address as text, IPv6 with or without a zone) is refused as a delivery target, or undefined when it is allowed. */
export function refusedTarget(address: string): RefusedAddress | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const withoutZone = bare.split('%', 1)[0] ?? '';
  const version = isIP(withoutZone);
  if (version === 4) return refusedIPv4(ipaddr.IPv4.parse(withoutZone));
  if (version === 6) return refusedIPv6(ipaddr.IPv6.parse(withoutZone));
  return { addressClass: 'not-an-address', description: classNames['not-an-address'] };
}

/**
 * What is refused even where private targets are allowed: the cloud metadata addresses (and their
 * embedded forms). They answer with the host's own credentials, never as a tenant's endpoint, and a
 * development stack on a cloud machine must not hand them to a tenant through the attempt log.
 */
export function refusedInsidePrivateNetworks(address: string): RefusedAddress | undefined {
  const refused = refusedTarget(address);
  return refused?.addressClass === 'cloud-metadata' ? refused : undefined;
}

/** A target refused by the policy: the delivery is dropped, never retried. */
export class TargetRefusedError extends Error {
  readonly code = 'WEBHOOK_TARGET_REFUSED';
  readonly address: string;
  readonly addressClass: AddressClass;

  constructor(subject: string, address: string, refused: RefusedAddress) {
    super(`${subject} ${address}, ${refused.description}; deliveries to private and special-purpose addresses are refused`);
    this.name = 'TargetRefusedError';
    this.address = address;
    this.addressClass = refused.addressClass;
  }
}

export function isTargetRefusedError(error: unknown): error is TargetRefusedError {
  return error instanceof TargetRefusedError;
}

/**
 * A host name that did not resolve to a public address, said alike whether it did not resolve at all
 * or resolved to a refused address (and never what it resolved to), so a tenant cannot learn which
 * internal names exist or where they point. Tried again later, as any DNS failure is.
 */
export class UnresolvedTargetError extends Error {
  readonly code = 'ENOTFOUND';

  constructor(hostname: string) {
    super(`the target host ${hostname} did not resolve to a public address`);
    this.name = 'UnresolvedTargetError';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** What a guarded lookup refuses, and whether a resolver's own failure is told as it came. */
export interface LookupGuard {
  readonly refused: (address: string) => RefusedAddress | undefined;
  /** Inside private networks a name's existence is no secret, so a resolver's failure is told as it is. */
  readonly tellFailures: boolean;
}

/** The default: public addresses only, and nothing told of a name that did not resolve to one. */
export const publicTargets: LookupGuard = { refused: refusedTarget, tellFailures: false };
/** Where private targets are allowed: only the cloud metadata addresses are refused. */
export const privateTargets: LookupGuard = { refused: refusedInsidePrivateNetworks, tellFailures: true };

/**
 * A lookup that resolves every address of `hostname` and refuses the host when ANY of them is refused:
 * a name that mixes public and private answers is how rebinding is staged, so none of its answers is
 * used (rather than filtering down to the public ones). Answers in whichever shape net.connect asked for.
 */
export function createGuardedLookup(resolve: LookupFunction = dnsLookup, guard: LookupGuard = publicTargets): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    resolve(hostname, { ...options, all: true }, (error, answer, family) => {
      if (error && guard.tellFailures) {
        callback(error, options.all === true ? [] : '', 0);
        return;
      }
      const addresses: LookupAddress[] = error ? [] : typeof answer === 'string' ? [{ address: answer, family: family ?? isIP(answer) }] : answer;
      const [first] = addresses;
      // No answer, or one refused: the same failure either way.
      if (first === undefined || addresses.some(({ address }) => guard.refused(address) !== undefined)) {
        callback(new UnresolvedTargetError(hostname), options.all === true ? [] : '', 0);
      } else if (options.all === true) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

export interface TargetConnectorOptions {
  /** When true, only the cloud metadata addresses are refused (development, tests, an on-premises install delivering inside its own network). */
  readonly allowPrivateTargets: boolean;
  readonly connectTimeoutMs: number;
  /** How host names are resolved (dns.lookup by default); every answer is checked. */
  readonly lookup?: LookupFunction;
  /** The connector that opens the socket (undici's, built with the guarded lookup, by default); a test seam for the last guard. */
  readonly connect?: buildConnector.connector;
}

/**
 * An undici connector that refuses a target the policy refuses: an IP literal before connecting (literals
 * never reach the lookup), a host name whose resolution includes a refused address, and, as the last
 * guard, a socket whose remote address is refused once connected (destroyed before any byte is sent).
 */
export function createTargetConnector(options: TargetConnectorOptions): buildConnector.connector {
  const guard = options.allowPrivateTargets ? privateTargets : publicTargets;
  const refusal = guard.refused;
  const connect = options.connect ?? buildConnector({ timeout: options.connectTimeoutMs, lookup: createGuardedLookup(options.lookup, guard) });
  return (target, callback) => {
    if (isIP(target.hostname) !== 0) {
      const refused = refusal(target.hostname);
      if (refused !== undefined) {
        const error = new TargetRefusedError('the target is', target.hostname, refused);
        queueMicrotask(() => {
          callback(error, null);
        });
        return;
      }
    }
    connect(target, (error, socket) => {
      if (error !== null) {
        callback(error, null);
        return;
      }
      const refused = connectedRefusal(socket, target.hostname, refusal);
      if (refused === undefined) callback(null, socket);
      else {
        socket.destroy();
        callback(refused, null);
      }
    });
  };
}

/** Why a connected socket must not be used, or undefined when its remote address is allowed. */
function connectedRefusal(socket: Socket, hostname: string, refusal: (address: string) => RefusedAddress | undefined): Error | undefined {
  const remote = socket.remoteAddress;
  if (remote === undefined) {
    // Closed before its address could be read: a network failure like a reset, tried again later.
    return Object.assign(new Error('the connection closed before its address could be checked'), { code: 'ECONNRESET' });
  }
  const refused = refusal(remote);
  if (refused === undefined) return undefined;
  // A name's answers are not told; a literal is the tenant's own.
  return isIP(hostname) === 0 ? new UnresolvedTargetError(hostname) : new TargetRefusedError('the connection went to', remote, refused);
}
