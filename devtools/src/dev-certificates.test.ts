import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureDevCertificates } from './dev-certificates.ts';

const dayMs = 24 * 60 * 60 * 1000;

describe('ensureDevCertificates', () => {
  it('issues a CA and certificates for loopback and the hosts given, keys 0600 in a 0700 folder, that chain to the CA', async () => {
    const folder = join(mkdtempSync(join(tmpdir(), 'dev-certs-')), 'tls');
    const { files, issuedBecause } = await ensureDevCertificates(folder, ['tool-service', '10.0.0.7']);
    expect(issuedBecause).toMatch(/does not exist/);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    for (const key of [files.gatewayKeyFile, files.toolServiceKeyFile]) expect(statSync(key).mode & 0o777).toBe(0o600);
    const ca = new X509Certificate(readFileSync(files.caFile));
    for (const file of [files.gatewayCertFile, files.toolServiceCertFile]) {
      const certificate = new X509Certificate(readFileSync(file));
      expect(certificate.verify(ca.publicKey)).toBe(true);
      for (const host of ['localhost', 'tool-service']) expect(certificate.checkHost(host)).toBe(host);
      for (const ip of ['127.0.0.1', '10.0.0.7']) expect(certificate.checkIP(ip)).toBe(ip);
    }
    expect(ca.ca).toBe(true);
  });

  it('reuses the certificates while they cover the hosts and are good for more than a week; issues them again otherwise', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'dev-certs-'));
    const now = new Date();
    const first = await ensureDevCertificates(folder, ['tool-service'], now);
    const ca = readFileSync(first.files.caFile, 'utf8');
    expect((await ensureDevCertificates(folder, ['tool-service'], now)).issuedBecause).toBeUndefined();
    expect(readFileSync(first.files.caFile, 'utf8')).toBe(ca);
    expect((await ensureDevCertificates(folder, ['tool-service', 'mcp-server'], now)).issuedBecause).toMatch(/does not cover mcp-server/);
    expect((await ensureDevCertificates(folder, ['mcp-server'], new Date(now.getTime() + 85 * dayMs))).issuedBecause).toMatch(/expires on/);
    expect(readFileSync(first.files.caFile, 'utf8')).not.toBe(ca);
  });
});
