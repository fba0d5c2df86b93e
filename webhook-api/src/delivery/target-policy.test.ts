import type { LookupAddress } from 'node:dns';
import { connect as netConnect, type LookupFunction, type Socket } from 'node:net';
import type { buildConnector } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../test/receiver.ts';
import {
  createGuardedLookup,
  createTargetConnector,
  refusedInsidePrivateNetworks,
  refusedTarget,
  UnresolvedTargetError,
  type AddressClass,
} from './target-policy.ts';

describe('refusedTarget', () => {
  const refused: [string, AddressClass][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'cloud-metadata'],
    ['169.254.170.2', 'cloud-metadata'],
    ['100.100.100.200', 'cloud-metadata'],
    ['168.63.129.16', 'cloud-metadata'],
    ['fd00:ec2::254', 'cloud-metadata'],
    ['100.64.0.1', 'carrier-grade-nat'],
    ['100.127.255.254', 'carrier-grade-nat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.1', 'benchmarking'],
    ['2001:2::1', 'benchmarking'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['fd00::1', 'unique-local'],
    ['fc00::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fec0::1', 'site-local'],
    ['64:ff9b:1::a00:1', 'local-nat64'],
    ['100::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['2001:4:112::1', 'reserved'],
    // IPv6 forms that carry a refused IPv4 address.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'cloud-metadata'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'cloud-metadata'],
    ['64:ff9b:1::a9fe:a9fe', 'cloud-metadata'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    // Teredo: server 65.54.227.120 (public), client 10.0.0.1 inverted (f5ff:fffe).
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private'],
    // Teredo with a loopback server.
    ['2001:0:7f00:1::1', 'loopback'],
    ['localhost', 'not-an-address'],
    ['', 'not-an-address'],
  ];

  it.each(refused)('refuses %s as %s', (address, addressClass) => {
    expect(refusedTarget(address)?.addressClass).toBe(addressClass);
  });

  it.each(['8.8.8.8', '93.184.216.34', '1.1.1.1', '172.32.0.1', '100.128.0.1', '169.253.255.255', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])(
    'allows the public address %s',
    (address) => {
      expect(refusedTarget(address)).toBeUndefined();
    },
  );

  it.each(['::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'])(
    'allows %s, an IPv6 form of a public IPv4 address',
    (address) => {
      expect(refusedTarget(address)).toBeUndefined();
    },
  );

  it('says which IPv4 address an IPv6 form carries', () => {
    expect(refusedTarget('::ffff:10.0.0.1')?.description).toBe('an IPv4-mapped form of 10.0.0.1, a private address');
  });
});

/** A lookup that answers from a table and counts its calls. */
function stagedLookup(answers: readonly (readonly LookupAddress[])[]): LookupFunction & { calls: number } {
  const lookup = ((hostname, _options, callback) => {
    const answer = answers[Math.min(lookup.calls, answers.length - 1)] ?? [];
    lookup.calls += 1;
    queueMicrotask(() => {
      callback(null, [...answer]);
    });
  }) as LookupFunction & { calls: number };
  lookup.calls = 0;
  return lookup;
}

function lookupOnce(
  lookup: LookupFunction,
  all: boolean,
): Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }> {
  return new Promise((resolve) => {
    lookup('hooks.example.com', { all }, (error, address, family) => {
      resolve({ error, address, ...(family === undefined ? {} : { family }) });
    });
  });
}

describe('refusedInsidePrivateNetworks', () => {
  it.each([
    '169.254.169.254',
    '169.254.170.2',
    '100.100.100.200',
    '168.63.129.16',
    'fd00:ec2::254',
    '[fd20:ce::254]',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::a9fe:a9fe',
    '[64:ff9b:1::a9fe:a9fe]',
  ])('refuses the cloud metadata address %s where private targets are allowed', (address) => {
    expect(refusedInsidePrivateNetworks(address)).toMatchObject({ addressClass: 'cloud-metadata' });
  });

  it.each(['127.0.0.1', '::1', '10.0.0.1', '192.168.1.20', '169.254.1.1', 'fd12:3456::1', '64:ff9b:1::a00:1'])('allows %s, a private address', (address) => {
    expect(refusedTarget(address)).toBeDefined();
    expect(refusedInsidePrivateNetworks(address)).toBeUndefined();
  });
});

describe('createGuardedLookup', () => {
  it('passes public answers on, in the shape asked for', async () => {
    const lookup = createGuardedLookup(
      stagedLookup([
        [
          { address: '93.184.216.34', family: 4 },
          { address: '2606:2800:220:1::1', family: 6 },
        ],
      ]),
    );
    expect(await lookupOnce(lookup, true)).toMatchObject({ error: null, address: [{ address: '93.184.216.34' }, { address: '2606:2800:220:1::1' }] });
    expect(await lookupOnce(lookup, false)).toMatchObject({ error: null, address: '93.184.216.34', family: 4 });
  });

  it('refuses the host when any answer is refused, not only the first', async () => {
    const lookup = createGuardedLookup(
      stagedLookup([
        [
          { address: '93.184.216.34', family: 4 },
          { address: '10.0.0.5', family: 4 },
        ],
      ]),
    );
    const { error } = await lookupOnce(lookup, true);
    expect(error).toBeInstanceOf(UnresolvedTargetError);
    expect(error?.message).toBe('the target host hooks.example.com did not resolve to a public address');
  });

  it('says the same of a name that resolves to a private address, one that resolves to nothing and one the resolver fails on: never what or whether it resolved', async () => {
    const failing: LookupFunction = (hostname, _options, callback) => {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    };
    const answers = await Promise.all([
      lookupOnce(createGuardedLookup(stagedLookup([[{ address: '10.1.2.3', family: 4 }]])), true),
      lookupOnce(createGuardedLookup(stagedLookup([[]])), true),
      lookupOnce(createGuardedLookup(failing), true),
    ]);
    for (const { error } of answers) {
      expect(error).toMatchObject({ code: 'ENOTFOUND', message: 'the target host hooks.example.com did not resolve to a public address' });
      expect(error?.message).not.toMatch(/10\.1\.2\.3|getaddrinfo/);
    }
  });
});

function connectWith(connector: buildConnector.connector, hostname: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    connector({ hostname, host: `${hostname}:${port}`, protocol: 'http:', port: String(port) }, (error, socket) => {
      if (error) reject(error);
      else resolve(socket);
    });
  });
}

describe('createTargetConnector', () => {
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it('refuses a loopback literal without connecting, and connects when private targets are allowed', async () => {
    receiver = await startReceiver();
    const refusing = createTargetConnector({ allowPrivateTargets: false, connectTimeoutMs: 1_000 });
    await expect(connectWith(refusing, '127.0.0.1', receiver.port)).rejects.toThrow('the target is 127.0.0.1, a loopback address');
    expect(receiver.connections).toBe(0);

    const allowing = createTargetConnector({ allowPrivateTargets: true, connectTimeoutMs: 1_000 });
    const socket = await connectWith(allowing, '127.0.0.1', receiver.port);
    expect(socket.remoteAddress).toBe('127.0.0.1');
    socket.destroy();
  });

  it('refuses a cloud metadata address where private targets are allowed, as a literal and as a name resolving to it', async () => {
    const allowing = createTargetConnector({ allowPrivateTargets: true, connectTimeoutMs: 1_000 });
    await expect(connectWith(allowing, '169.254.169.254', 80)).rejects.toThrow('the target is 169.254.169.254, a cloud metadata address');
    const lookup = stagedLookup([[{ address: '169.254.169.254', family: 4 }]]);
    const byName = createTargetConnector({ allowPrivateTargets: true, connectTimeoutMs: 1_000, lookup });
    await expect(connectWith(byName, 'metadata.example.com', 80)).rejects.toBeInstanceOf(UnresolvedTargetError);
    expect(lookup.calls).toBe(1);
  });

  it('refuses a host name at the resolution the connection uses, even when an earlier resolution was public', async () => {
    receiver = await startReceiver();
    // DNS rebinding: the first answer (seen by any earlier check) is public, the one the connection gets is loopback.
    const lookup = stagedLookup([[{ address: '93.184.216.34', family: 4 }], [{ address: '127.0.0.1', family: 4 }]]);
    expect(await lookupOnce(createGuardedLookup(lookup), true)).toMatchObject({ error: null });
    const connector = createTargetConnector({ allowPrivateTargets: false, connectTimeoutMs: 1_000, lookup });
    await expect(connectWith(connector, 'rebind.example.com', receiver.port)).rejects.toThrow(
      'the target host rebind.example.com did not resolve to a public address',
    );
    expect(lookup.calls).toBe(2);
    expect(receiver.connections).toBe(0);
  });

  it('refuses localhost through the system resolver', async () => {
    receiver = await startReceiver();
    const connector = createTargetConnector({ allowPrivateTargets: false, connectTimeoutMs: 1_000 });
    await expect(connectWith(connector, 'localhost', receiver.port)).rejects.toBeInstanceOf(UnresolvedTargetError);
    expect(receiver.connections).toBe(0);
  });

  it('destroys a connection whose remote address is refused, however it was reached (the last guard)', async () => {
    receiver = await startReceiver();
    const port = receiver.port;
    let staged: Socket | undefined;
    // A connector that ignores the policy's lookup, as a resolver path the policy did not see would.
    const unguarded: buildConnector.connector = (_target, callback) => {
      const socket = netConnect({ host: '127.0.0.1', port });
      staged = socket;
      socket.once('connect', () => {
        callback(null, socket);
      });
      socket.once('error', (error) => {
        callback(error, null);
      });
    };
    const connector = createTargetConnector({ allowPrivateTargets: false, connectTimeoutMs: 1_000, connect: unguarded });
    await expect(connectWith(connector, 'public.example.com', port)).rejects.toThrow('the target host public.example.com did not resolve to a public address');
    expect(staged?.destroyed).toBe(true);
  });
});
