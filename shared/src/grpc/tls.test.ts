import { readFileSync, renameSync, copyFileSync } from 'node:fs';
import { connect } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { createTestPki, type CertificateFiles, type TestPki } from '@platform/devtools/test-certificates';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcTls, tlsRefusalReason, type GrpcTls, type TlsRefusal } from './tls.ts';
import { toolClient, until } from '../testing/index.ts';
import { startToolServer, type RunningToolServer } from '../tools/tool-server.ts';
import type { ToolRunner } from '../tools/tool-runner.ts';

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
});

const tlsOf = (caFile: string, own: CertificateFiles, requireClientCert = false, reloadMs = 60_000): GrpcTls =>
  createGrpcTls({ caFile, ...own, requireClientCert, reloadMs });

const token = 'delegated-token-that-must-not-travel';

/** A tool server over TLS whose one tool records the authorization it was sent, and every handshake it refused. */
async function serve(tls: GrpcTls) {
  const received: string[] = [];
  const refusals: TlsRefusal[] = [];
  const runner: ToolRunner = {
    listing: [],
    setTools: () => undefined,
    call: (call) => {
      received.push(...call.authorization);
      return Promise.resolve({ result: { content: [{ text: 'done' }], structuredContentJson: '{}', isError: false } });
    },
  };
  const server = await startToolServer(runner, '127.0.0.1:0', {}, { tls, onTlsRefusal: (refusal) => refusals.push(refusal) });
  running.push(server);
  return { server, received, refusals };
}

const running: RunningToolServer[] = [];
const clients: { close(): void }[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(running.splice(0).map((server) => server.close(0)));
});

async function callOnce(target: string, credentials: grpc.ChannelCredentials) {
  const client = toolClient(target, credentials);
  clients.push(client);
  return client.call('any', {}, token, { deadlineMs: 10_000 });
}

describe('gRPC over TLS', () => {
  it('connects with the right CA, to the host its certificate names (an IP address or a name), and the token arrives', async () => {
    const { server, received } = await serve(tlsOf(pki.caFile, pki.server));
    const client = tlsOf(pki.caFile, pki.client).channelCredentials;
    expect(await callOnce(`127.0.0.1:${server.port}`, client)).toMatchObject({ ok: true, text: 'done' });
    expect(await callOnce(`localhost:${server.port}`, client)).toMatchObject({ ok: true, text: 'done' });
    expect(received).toEqual([`Bearer ${token}`, `Bearer ${token}`]);
  });

  const refusedByTheClient: [string, (p: TestPki) => { serverCert: CertificateFiles; clientCa: string }, RegExp][] = [
    ['a certificate of another CA', (p) => ({ serverCert: p.server, clientCa: p.otherCaFile }), /does not chain to GRPC_TLS_CA_FILE/],
    ['a certificate for another host name', (p) => ({ serverCert: p.wrongHost, clientCa: p.caFile }), /not for the host dialled/],
    ['an expired certificate', (p) => ({ serverCert: p.expired, clientCa: p.caFile }), /has expired/],
  ];
  it.each(refusedByTheClient)('refuses a server with %s before sending anything, and says why', async (_case, pick, why) => {
    const { serverCert, clientCa } = pick(pki);
    const { server, received } = await serve(tlsOf(pki.caFile, serverCert));
    const answer = await callOnce(`127.0.0.1:${server.port}`, tlsOf(clientCa, pki.client).channelCredentials);
    expect(answer).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
    expect(tlsRefusalReason(answer.ok ? '' : answer.details)).toMatch(why);
    expect(received).toEqual([]);
  });

  const refusedByTheServer: [string, (p: TestPki) => grpc.ChannelCredentials, RegExp][] = [
    ['no client certificate', (p) => grpc.credentials.createSsl(readFileSync(p.caFile)), /showed no certificate/],
    ['a client certificate of another CA', (p) => tlsOf(p.caFile, p.foreign).channelCredentials, /does not chain to GRPC_TLS_CA_FILE/],
    ['an expired client certificate', (p) => tlsOf(p.caFile, p.expired).channelCredentials, /has expired/],
    ['no TLS at all', () => grpc.credentials.createInsecure(), /does not speak TLS/],
  ];
  it.each(refusedByTheServer)(
    'under mutual TLS, refuses a client with %s at the handshake: no call runs, and the server says why',
    async (_case, credentialsOf, why) => {
      const { server, received, refusals } = await serve(tlsOf(pki.caFile, pki.server, true));
      const answer = await callOnce(`127.0.0.1:${server.port}`, credentialsOf(pki));
      expect(answer).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
      await until(() => refusals.length > 0, 'the server reported the refusal');
      expect(refusals[0]?.reason).toMatch(why);
      expect(refusals[0]?.peer).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(received).toEqual([]);
    },
  );

  it('under mutual TLS, lets in a client whose certificate chains to the CA', async () => {
    const { server, received, refusals } = await serve(tlsOf(pki.caFile, pki.server, true));
    expect(await callOnce(`127.0.0.1:${server.port}`, tlsOf(pki.caFile, pki.client).channelCredentials)).toMatchObject({ ok: true });
    expect(received).toEqual([`Bearer ${token}`]);
    expect(refusals).toEqual([]);
  });

  it('serves a renewed certificate to new connections once its files were replaced, without a restart', async () => {
    const live = await pki.issue('live', ['127.0.0.1']);
    const { server } = await serve(tlsOf(pki.caFile, live, false, 100));
    const servedName = () =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: server.port, ca: readFileSync(pki.caFile), ALPNProtocols: ['h2'] }, () => {
          resolve(String(socket.getPeerCertificate().subject.CN));
          socket.destroy();
        });
        socket.once('error', reject);
      });
    expect(await servedName()).toBe('live');

    // Replaced as an operator (or cert-manager) does: whole files, moved into place.
    const renewed = await pki.issue('renewed', ['127.0.0.1']);
    copyFileSync(renewed.keyFile, `${live.keyFile}.new`);
    copyFileSync(renewed.certFile, `${live.certFile}.new`);
    renameSync(`${live.keyFile}.new`, live.keyFile);
    renameSync(`${live.certFile}.new`, live.certFile);
    await until(async () => (await servedName()) === 'renewed', 'a new connection is served the renewed certificate', 15_000);
  });
});
