import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestPki, type TestPki } from '@platform/devtools/test-certificates';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPlatformMcpSettings } from '../settings/platform-settings.ts';
import { settingsFailure } from '../testing/index.ts';

const minimal = { APP_CLIENT_ID: 'webhook-tools', APP_CLIENT_SECRET: 'a-secret-from-the-environment', SERVICE_NAME: 'webhook-tools' };

let pki: TestPki;
let tls: Record<string, string>;
beforeAll(async () => {
  pki = await createTestPki();
  tls = { GRPC_TLS_CA_FILE: pki.caFile, GRPC_TLS_CERT_FILE: pki.client.certFile, GRPC_TLS_KEY_FILE: pki.client.keyFile };
});

/** The one start-up message, checked to hold no key material. */
function refusal(env: Record<string, string>): string {
  const message = settingsFailure(() => loadPlatformMcpSettings({ ...minimal, ...env }));
  expect(message).not.toMatch(/PRIVATE KEY|BEGIN/);
  for (const file of [pki.client.keyFile, pki.server.keyFile]) {
    const body = readFileSync(file, 'utf8').split('\n')[1] ?? '';
    expect(message).not.toContain(body.slice(0, 24));
  }
  expect(message.split('\n')).toHaveLength(1);
  return message;
}

describe('GRPC_TLS_* settings', () => {
  it('reads the files, the client-certificate rule and the reload interval; TLS lets gRPC addresses leave loopback', () => {
    const settings = loadPlatformMcpSettings({
      ...minimal,
      ...tls,
      GRPC_TLS_REQUIRE_CLIENT_CERT: 'true',
      GRPC_TLS_RELOAD_SECONDS: '5',
      GATEWAY_ADDRESS: 'mcp-server:3001',
      CALLBACK_ADDRESS: 'tool-service:50051',
    });
    expect(settings.grpcTls).toEqual({
      caFile: pki.caFile,
      certFile: pki.client.certFile,
      keyFile: pki.client.keyFile,
      requireClientCert: true,
      reloadMs: 5000,
    });
    expect(settings.gatewayAddress).toBe('mcp-server:3001');
  });

  it('stays plaintext, on loopback only, when no certificate variable is set', () => {
    expect(loadPlatformMcpSettings(minimal).grpcTls).toBeUndefined();
    expect(refusal({ GATEWAY_ADDRESS: 'mcp-server:3001' })).toMatch(
      /GATEWAY_ADDRESS must be a loopback address: gRPC carries tokens without TLS \(set GRPC_TLS_CA_FILE/,
    );
  });

  it('names the variable and the file that does not exist', () => {
    const missing = join(pki.folder, 'nowhere.pem');
    expect(refusal({ ...tls, GRPC_TLS_CERT_FILE: missing })).toBe(`Invalid settings: GRPC_TLS_CERT_FILE cannot read ${missing}: no such file.`);
  });

  it('names the variable and the file that cannot be read', () => {
    if (process.getuid?.() === 0) {
      // root reads every file: a folder stands in for an unreadable file.
      expect(refusal({ ...tls, GRPC_TLS_CA_FILE: pki.folder })).toBe(`Invalid settings: GRPC_TLS_CA_FILE cannot read ${pki.folder}: is a folder, not a file.`);
      return;
    }
    const locked = join(pki.folder, 'locked.pem');
    writeFileSync(locked, readFileSync(pki.caFile));
    chmodSync(locked, 0o000);
    expect(refusal({ ...tls, GRPC_TLS_CA_FILE: locked })).toBe(`Invalid settings: GRPC_TLS_CA_FILE cannot read ${locked}: permission denied.`);
  });

  it('refuses files that are not what they should be, naming each', () => {
    const text = join(pki.folder, 'notes.txt');
    writeFileSync(text, 'not a certificate\n');
    expect(refusal({ ...tls, GRPC_TLS_CA_FILE: text })).toBe(`Invalid settings: GRPC_TLS_CA_FILE ${text} is not a PEM certificate.`);
    expect(refusal({ ...tls, GRPC_TLS_CERT_FILE: pki.client.keyFile })).toContain(`GRPC_TLS_CERT_FILE ${pki.client.keyFile} is not a PEM certificate`);
    expect(refusal({ ...tls, GRPC_TLS_KEY_FILE: pki.client.certFile })).toContain(`GRPC_TLS_KEY_FILE ${pki.client.certFile} is not a PEM private key`);
  });

  it('refuses a key that does not match the certificate', () => {
    expect(refusal({ ...tls, GRPC_TLS_KEY_FILE: pki.server.keyFile })).toBe(
      `Invalid settings: GRPC_TLS_KEY_FILE ${pki.server.keyFile} does not match the certificate in GRPC_TLS_CERT_FILE (${pki.client.certFile}).`,
    );
  });

  it('refuses an expired certificate, saying when it expired', () => {
    expect(refusal({ ...tls, GRPC_TLS_CERT_FILE: pki.expired.certFile, GRPC_TLS_KEY_FILE: pki.expired.keyFile })).toMatch(
      new RegExp(`^Invalid settings: GRPC_TLS_CERT_FILE ${pki.expired.certFile} holds a certificate that expired on .+ GMT\\.$`),
    );
  });

  it('refuses a key without a certificate, and a certificate without a key, naming both', () => {
    expect(refusal({ GRPC_TLS_CA_FILE: pki.caFile, GRPC_TLS_KEY_FILE: pki.client.keyFile })).toMatch(/GRPC_TLS_KEY_FILE is set without GRPC_TLS_CERT_FILE/);
    expect(refusal({ GRPC_TLS_CA_FILE: pki.caFile, GRPC_TLS_CERT_FILE: pki.client.certFile })).toMatch(/GRPC_TLS_CERT_FILE is set without GRPC_TLS_KEY_FILE/);
  });

  it('refuses certificates without a CA, a CA without a certificate, and a client-certificate rule without TLS', () => {
    expect(refusal({ GRPC_TLS_CERT_FILE: pki.client.certFile, GRPC_TLS_KEY_FILE: pki.client.keyFile })).toMatch(
      /GRPC_TLS_CA_FILE is required with GRPC_TLS_CERT_FILE/,
    );
    expect(refusal({ GRPC_TLS_CA_FILE: pki.caFile })).toMatch(/GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE are required with GRPC_TLS_CA_FILE/);
    expect(refusal({ GRPC_TLS_REQUIRE_CLIENT_CERT: 'true' })).toMatch(
      /GRPC_TLS_REQUIRE_CLIENT_CERT needs GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE/,
    );
  });
});
