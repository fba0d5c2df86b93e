// Refused TLS handshakes at the registry make bounded noise: 300 plaintext attempts from one peer
// and 300 clients without a certificate from another are at most one line per peer per interval
// (the first, saying why and what to do) and one more as the interval ends, with the count.
import { readFileSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { seedWithToolPublishers, startPlatform } from '@platform/dev-platform/testing';
import { createTestPki, type TestPki } from '@platform/devtools/test-certificates';
import { createGrpcTls } from '@platform/tool-sdk/internal';
import { manualClock, startedForTests, until } from '@platform/tool-sdk/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { startGateway } from './registry-harness.ts';

const platform = startedForTests(() => startPlatform({ seed: seedWithToolPublishers('fleet-insights') }));
let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
}, 60_000);

/** Runs `attempt` `count` times, `batch` at a time, each resolving once its connection closed. */
async function attempts(count: number, batch: number, attempt: () => Promise<void>): Promise<void> {
  for (let done = 0; done < count; done += batch) await Promise.all(Array.from({ length: Math.min(batch, count - done) }, attempt));
}

/** A client that speaks HTTP/2 without TLS, from `localAddress`. */
const plaintext = (port: number, localAddress: string) => () =>
  new Promise<void>((resolve) => {
    const socket = connectTcp({ host: '127.0.0.1', port, localAddress }, () => socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      resolve();
    });
  });

/** A TLS client that trusts the registry but shows no certificate, from `localAddress`. */
const withoutCertificate = (port: number, localAddress: string, ca: Buffer) => () =>
  new Promise<void>((resolve) => {
    const tcp = connectTcp({ host: '127.0.0.1', port, localAddress });
    const socket = connectTls({ socket: tcp, ca, servername: 'localhost', ALPNProtocols: ['h2'] });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      resolve();
    });
  });

describe('refused TLS handshakes at the registry', () => {
  it('make at most one line per peer per interval and one with the count, saying what to do', async () => {
    const clock = manualClock(Date.now());
    const tls = createGrpcTls({ caFile: pki.caFile, certFile: pki.server.certFile, keyFile: pki.server.keyFile, requireClientCert: true, reloadMs: 60_000 });
    const gateway = await startGateway(platform().issuer, { tls, clock, timers: clock });
    const port = Number(gateway.address.slice(gateway.address.lastIndexOf(':') + 1));
    const refusalLines = () => gateway.logs.lines.filter((line) => line.includes('TLS handshake'));
    try {
      await attempts(300, 30, plaintext(port, '127.0.0.1'));
      await attempts(300, 30, withoutCertificate(port, '127.0.0.2', readFileSync(pki.caFile)));
      await until(() => refusalLines().length >= 2, 'both peers were told of');

      expect(refusalLines()).toHaveLength(2);
      const [first, second] = refusalLines().map((line) => JSON.parse(line) as { level: number; msg: string; peer: string; reason: string });
      expect(first).toMatchObject({
        level: 40,
        peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/) as unknown,
        reason: expect.stringContaining('plaintext') as unknown,
      });
      expect(first?.msg).toContain('the peer may be speaking plaintext to a TLS port: set GRPC_TLS_CA_FILE');
      expect(second).toMatchObject({
        level: 40,
        peer: expect.stringMatching(/^127\.0\.0\.2:\d+$/) as unknown,
        reason: expect.stringContaining('no certificate') as unknown,
      });
      expect(second?.msg).toContain('GRPC_TLS_CERT_FILE');

      // As the interval ends: one line per peer with what was counted.
      clock.advance(60_000);
      await until(() => refusalLines().length >= 4, 'the counts were told');
    } finally {
      await gateway.close();
    }
    const lines = refusalLines().map((line) => JSON.parse(line) as { peer: string; refused: number; msg: string });
    expect(lines.length).toBeLessThanOrEqual(5);
    const refusedFrom = (host: string) =>
      lines.filter((line) => line.peer.startsWith(`${host}:`) || line.peer === host).reduce((sum, line) => sum + line.refused, 0);
    expect(refusedFrom('127.0.0.1')).toBe(300);
    expect(refusedFrom('127.0.0.2')).toBe(300);
    expect(lines.find((line) => line.peer === '127.0.0.1')?.msg).toMatch(
      /^refused \d+ more TLS handshakes from 127\.0\.0\.1 in the last 60 s; the peer may be speaking plaintext/,
    );
  }, 60_000);
});
