import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureDevCertificates, issueServiceCertificate, NoDevCaError } from './dev-certificates.ts';

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
    expect(statSync(files.caKeyFile).mode & 0o777).toBe(0o600);
  });

  it("issues a new service's certificate of the same CA on demand, for its name and loopback, its key 0600", async () => {
    const folder = join(mkdtempSync(join(tmpdir(), 'dev-certs-')), 'tls');
    const { files } = await ensureDevCertificates(folder, []);
    const issued = await issueServiceCertificate(folder, 'my-tools');
    expect(issued.caFile).toBe(files.caFile);
    expect(issued.certFile).toBe(join(folder, 'services', 'my-tools.pem'));
    expect(statSync(issued.keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(folder, 'services')).mode & 0o777).toBe(0o700);
    const certificate = new X509Certificate(readFileSync(issued.certFile));
    expect(certificate.verify(new X509Certificate(readFileSync(files.caFile)).publicKey)).toBe(true);
    expect(certificate.subject).toBe('CN=my-tools');
    expect(certificate.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(certificate.checkHost('localhost')).toBe('localhost');
    expect(new X509Certificate(readFileSync(files.toolServiceCertFile)).fingerprint256).not.toBe(certificate.fingerprint256);
  });

  it('says why it cannot issue without the CA and its key, and refuses a name that is no file name', async () => {
    const folder = join(mkdtempSync(join(tmpdir(), 'dev-certs-')), 'tls');
    await expect(issueServiceCertificate(folder, 'my-tools')).rejects.toThrow(NoDevCaError);
    const { files } = await ensureDevCertificates(folder, []);
    rmSync(files.caKeyFile);
    await expect(issueServiceCertificate(folder, 'my-tools')).rejects.toThrow(`${files.caKeyFile} does not exist`);
    await expect(issueServiceCertificate(folder, '../escape')).rejects.toThrow(TypeError);
    // Certificates written before the CA's key was kept are issued again at the next start.
    expect((await ensureDevCertificates(folder, [])).issuedBecause).toBe(`${files.caKeyFile} does not exist`);
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
