// Certificates for the TLS tests, written into a folder of the test's own: a CA and a second one,
// and certificates that are right, for another host, expired, and issued by the second CA.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority, issueCertificate, type CertificateAuthority, type IssuedCertificate, type Validity } from './dev-certificates.ts';

export interface CertificateFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

export interface TestPki {
  readonly folder: string;
  readonly caFile: string;
  /** A CA that issued none of the certificates below but `foreign`. */
  readonly otherCaFile: string;
  /** For 127.0.0.1, ::1 and localhost. */
  readonly server: CertificateFiles;
  /** For 127.0.0.1 too: a second identity of the same CA (a tool service's). */
  readonly client: CertificateFiles;
  /** For elsewhere.example only. */
  readonly wrongHost: CertificateFiles;
  /** For 127.0.0.1, expired yesterday. */
  readonly expired: CertificateFiles;
  /** For 127.0.0.1, issued by the other CA. */
  readonly foreign: CertificateFiles;
  /** Issues one more certificate of the first CA into the folder, under `name`. */
  issue(name: string, hosts: readonly string[], validity?: Validity): Promise<CertificateFiles>;
}

const loopback = ['127.0.0.1', '::1', 'localhost'];
const dayMs = 24 * 60 * 60 * 1000;

export async function createTestPki(): Promise<TestPki> {
  const folder = mkdtempSync(join(tmpdir(), 'grpc-tls-'));
  const write = (name: string, text: string, mode = 0o644) => {
    const file = join(folder, name);
    writeFileSync(file, text, { mode });
    return file;
  };
  const save = (name: string, issued: IssuedCertificate): CertificateFiles => ({
    certFile: write(`${name}.pem`, issued.certificatePem),
    keyFile: write(`${name}-key.pem`, issued.privateKeyPem, 0o600),
  });
  const ca: CertificateAuthority = await createCertificateAuthority('Test CA');
  const other = await createCertificateAuthority('Other test CA');
  const issue = async (name: string, hosts: readonly string[], validity?: Validity) => save(name, await issueCertificate(ca, name, hosts, validity));
  return {
    folder,
    caFile: write('ca.pem', ca.certificatePem),
    otherCaFile: write('other-ca.pem', other.certificatePem),
    server: await issue('server', loopback),
    client: await issue('client', loopback),
    wrongHost: await issue('wrong-host', ['elsewhere.example']),
    expired: await issue('expired', loopback, { notBefore: new Date(Date.now() - 30 * dayMs), notAfter: new Date(Date.now() - dayMs) }),
    foreign: save('foreign', await issueCertificate(other, 'foreign', loopback)),
    issue,
  };
}
