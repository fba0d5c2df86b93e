// Registration at a gateway that takes tool services over mutual TLS, by a service whose TLS
// settings do not fit: the line it logs names the settings to check (GRPC_TLS_* and GATEWAY_ADDRESS),
// since the gateway's log is not at hand and grpc-js says only that no connection was made.
import * as grpc from '@grpc/grpc-js';
import { createTestPki, type TestPki } from '@platform/devtools/test-certificates';
import { captureLogs } from '@platform/tool-sdk/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcTls, type GrpcTls } from '../grpc/tls.ts';
import { createLogger } from '../service/logger.ts';
import { createGatewayRegistration, type GatewayRegistration } from './gateway-registration.ts';
import { startToolServer, type RunningToolServer } from './tool-server.ts';
import type { ToolRunner } from './tool-runner.ts';

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A gRPC server that requires a client certificate of the test CA, as npm start's gateway does; its handshake is what fails. */
async function mutualTlsGateway(): Promise<string> {
  const runner: ToolRunner = { listing: [], setTools: () => undefined, call: () => Promise.reject(new Error('not called')) };
  const tls: GrpcTls = createGrpcTls({ caFile: pki.caFile, ...pki.server, requireClientCert: true, reloadMs: 60_000 });
  const server: RunningToolServer = await startToolServer(runner, '127.0.0.1:0', {}, { tls });
  cleanups.push(() => server.close(0));
  return `127.0.0.1:${server.port}`;
}

/** Registers with `credentials` until the first failure is logged; returns that line's reason. */
async function firstFailure(gatewayAddress: string, credentials: grpc.ChannelCredentials): Promise<string> {
  const logs = captureLogs();
  const registration: GatewayRegistration = createGatewayRegistration({
    gatewayAddress,
    serviceName: 'my-tools',
    callbackAddress: '127.0.0.1:50061',
    ttlSeconds: 30,
    accessToken: () => Promise.resolve('app-token'),
    logger: createLogger({ name: 'registration-test', level: 'info', destination: logs.destination }),
    backoff: { initialMs: 60_000, maxMs: 60_000 },
    callTimeoutMs: 5_000,
    channelCredentials: credentials,
  });
  cleanups.push(() => registration.stop());
  registration.start();
  await expect.poll(() => logs.lines.some((line) => line.includes('cannot register')), { timeout: 10_000 }).toBe(true);
  const line = logs.lines.find((candidate) => candidate.includes('cannot register')) ?? '';
  return (JSON.parse(line) as { reason: string }).reason;
}

describe('a registration the gateway refuses at the TLS handshake', () => {
  it('names the TLS settings and GATEWAY_ADDRESS when the service dials in plaintext', async () => {
    const reason = await firstFailure(await mutualTlsGateway(), grpc.credentials.createInsecure());
    expect(reason).toMatch(/^UNAVAILABLE: /);
    expect(reason).toContain('dials in plaintext');
    for (const setting of ['GRPC_TLS_CA_FILE', 'GRPC_TLS_CERT_FILE', 'GRPC_TLS_KEY_FILE', 'GATEWAY_ADDRESS']) expect(reason).toContain(setting);
    expect(reason).not.toContain("see the peer's log");
  });

  it("names the certificate settings when the gateway refuses the service's certificate", async () => {
    const foreign = createGrpcTls({ caFile: pki.caFile, ...pki.foreign, requireClientCert: false, reloadMs: 60_000 });
    const reason = await firstFailure(await mutualTlsGateway(), foreign.channelCredentials);
    expect(reason).toMatch(/^UNAVAILABLE: /);
    for (const setting of ['GRPC_TLS_CERT_FILE', 'GRPC_TLS_KEY_FILE', 'GRPC_TLS_CA_FILE']) expect(reason).toContain(setting);
    expect(reason).not.toContain("see the peer's log");
  });
});
