// Certificates for running gRPC over mutual TLS on a developer's machine (npm start) and in the
// tests: a development CA, and certificates it issues for the gateway and the tool service that
// serve and dial with the same key pair. Written with @peculiar/x509 on WebCrypto (no openssl).
// The CA's private key is kept beside it (ca-key.pem, 0600 in the 0700 folder), so that a new tool
// service gets a certificate of its own on demand (`npm run tool-env`), not the repository's
// service's: a CA for this machine's loopback only, issued anew when it nears its end.
import { X509Certificate as NodeCertificate, webcrypto } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
// @peculiar/x509 resolves its parts through tsyringe, which needs the Reflect metadata API first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const dayMs = 24 * 60 * 60 * 1000;

export interface CertificateAuthority {
  readonly certificatePem: string;
  readonly keys: webcrypto.CryptoKeyPair;
}

export interface IssuedCertificate {
  readonly certificatePem: string;
  /** PKCS #8 PEM. */
  readonly privateKeyPem: string;
}

export interface Validity {
  readonly notBefore?: Date;
  readonly notAfter?: Date;
}

const randomSerial = () =>
  Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');

/** A self-signed CA that may issue leaf certificates only (path length 0). */
export async function createCertificateAuthority(name: string, validity: Validity = {}): Promise<CertificateAuthority> {
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const notBefore = validity.notBefore ?? new Date(Date.now() - 60_000);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `CN=${name}`,
    notBefore,
    notAfter: validity.notAfter ?? new Date(notBefore.getTime() + 365 * dayMs),
    keys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certificatePem: certificate.toString('pem'), keys };
}

/** A certificate for `hosts` (DNS names and IP addresses as subject alternative names), good for serving and for dialling. */
export async function issueCertificate(
  ca: CertificateAuthority,
  commonName: string,
  hosts: readonly string[],
  validity: Validity = {},
): Promise<IssuedCertificate> {
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const issuer = new x509.X509Certificate(ca.certificatePem);
  const notBefore = validity.notBefore ?? new Date(Date.now() - 60_000);
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: `CN=${commonName}`,
    issuer: issuer.subject,
    notBefore,
    notAfter: validity.notAfter ?? new Date(notBefore.getTime() + 90 * dayMs),
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
      new x509.SubjectAlternativeNameExtension(hosts.map((host) => ({ type: isIP(host) ? 'ip' : 'dns', value: host }))),
      await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certificatePem: certificate.toString('pem'), privateKeyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

/** The files npm start writes under its TLS folder, by role. */
export interface DevCertificateFiles {
  readonly caFile: string;
  /** The CA's private key (PKCS #8), for issuing a new service's certificate; 0600. */
  readonly caKeyFile: string;
  readonly gatewayCertFile: string;
  readonly gatewayKeyFile: string;
  readonly toolServiceCertFile: string;
  readonly toolServiceKeyFile: string;
}

export function devCertificateFiles(folder: string): DevCertificateFiles {
  return {
    caFile: join(folder, 'ca.pem'),
    caKeyFile: join(folder, 'ca-key.pem'),
    gatewayCertFile: join(folder, 'gateway.pem'),
    gatewayKeyFile: join(folder, 'gateway-key.pem'),
    toolServiceCertFile: join(folder, 'tool-service.pem'),
    toolServiceKeyFile: join(folder, 'tool-service-key.pem'),
  };
}

/** The hosts every development certificate covers, besides those configured. */
export const loopbackHosts: readonly string[] = ['127.0.0.1', 'localhost', '::1'];

/** Certificates closer to their end than this are issued again. */
const renewBeforeMs = 7 * dayMs;

/** Why the certificates in `folder` cannot be reused for `hosts` at `now`; undefined when they can. */
export function staleReason(folder: string, hosts: readonly string[], now = new Date()): string | undefined {
  const files = devCertificateFiles(folder);
  const all: readonly string[] = [
    files.caFile,
    files.caKeyFile,
    files.gatewayCertFile,
    files.gatewayKeyFile,
    files.toolServiceCertFile,
    files.toolServiceKeyFile,
  ];
  const missing = all.find((file) => !existsSync(file));
  if (missing) return `${missing} does not exist`;
  for (const file of [files.caFile, files.gatewayCertFile, files.toolServiceCertFile]) {
    let certificate: NodeCertificate;
    try {
      certificate = new NodeCertificate(readFileSync(file));
    } catch {
      return `${file} is not a certificate`;
    }
    if (new Date(certificate.validTo).getTime() - now.getTime() < renewBeforeMs) return `${file} expires on ${certificate.validTo}`;
    if (file === files.caFile) continue;
    const uncovered = hosts.find((host) => (isIP(host) ? certificate.checkIP(host) : certificate.checkHost(host, { wildcards: false })) === undefined);
    if (uncovered !== undefined) return `${file} does not cover ${uncovered}`;
  }
  return undefined;
}

/** Writes a file whole or not at all (a process watching it never reads half), with `mode`. */
function writeAtomically(file: string, text: string, mode: number): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode });
  chmodSync(temporary, mode);
  renameSync(temporary, file);
}

export interface EnsuredCertificates {
  readonly files: DevCertificateFiles;
  /** Why they were issued now; undefined when the ones in the folder were reused. */
  readonly issuedBecause: string | undefined;
}

/**
 * The development CA and the gateway's and tool service's certificates in `folder` (mode 0700,
 * keys 0600), covering loopback and `hosts`: reused while they are good for more than a week and
 * cover every host, otherwise all issued again under a new CA.
 */
export async function ensureDevCertificates(folder: string, hosts: readonly string[], now = new Date()): Promise<EnsuredCertificates> {
  const covered = [...new Set([...loopbackHosts, ...hosts.map((host) => host.replace(/^\[(.*)\]$/, '$1').toLowerCase())])];
  const files = devCertificateFiles(folder);
  const reason = staleReason(folder, covered, now);
  if (reason === undefined) return { files, issuedBecause: undefined };
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  const ca = await createCertificateAuthority('Platform development CA', { notBefore: new Date(now.getTime() - 60_000) });
  const validity = { notBefore: new Date(now.getTime() - 60_000), notAfter: new Date(now.getTime() + 90 * dayMs) };
  const gateway = await issueCertificate(ca, 'mcp-gateway', covered, validity);
  const toolService = await issueCertificate(ca, 'tool-service', covered, validity);
  writeAtomically(files.gatewayKeyFile, gateway.privateKeyPem, 0o600);
  writeAtomically(files.gatewayCertFile, gateway.certificatePem, 0o644);
  writeAtomically(files.toolServiceKeyFile, toolService.privateKeyPem, 0o600);
  writeAtomically(files.toolServiceCertFile, toolService.certificatePem, 0o644);
  writeAtomically(files.caKeyFile, x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', ca.keys.privateKey), 'PRIVATE KEY'), 0o600);
  writeAtomically(files.caFile, ca.certificatePem, 0o644);
  return { files, issuedBecause: reason };
}

/** A certificate and key issued for one tool service, and the CA to trust. */
export interface ServiceCertificateFiles {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/** Why no certificate can be issued from `folder`: its development CA is missing, or has no key kept. */
export class NoDevCaError extends Error {
  override readonly name = 'NoDevCaError';
  readonly code = 'NO_DEV_CA';
}

/**
 * A certificate of the development CA in `folder` for the service `name`, good for serving and
 * dialling on loopback and `hosts`, written to `services/<name>.pem` and `services/<name>-key.pem`
 * (key 0600) and issued anew on every call; it ends with the CA, 90 days at most.
 */
export async function issueServiceCertificate(folder: string, name: string, hosts: readonly string[] = [], now = new Date()): Promise<ServiceCertificateFiles> {
  if (!/^[a-z0-9][a-z0-9.-]{0,62}$/.test(name))
    throw new TypeError(`issueServiceCertificate: name must be lower-case letters, digits, dots and dashes (got ${JSON.stringify(name.slice(0, 80))})`);
  const files = devCertificateFiles(folder);
  if (!existsSync(files.caFile) || !existsSync(files.caKeyFile)) {
    throw new NoDevCaError(`${folder} holds no development CA with its key (${existsSync(files.caFile) ? files.caKeyFile : files.caFile} does not exist)`);
  }
  const caCertificate = new x509.X509Certificate(readFileSync(files.caFile, 'utf8'));
  const privateKey = await webcrypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(readFileSync(files.caKeyFile, 'utf8')), algorithm, true, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('spki', caCertificate.publicKey.rawData, algorithm, true, ['verify']);
  const ca: CertificateAuthority = { certificatePem: caCertificate.toString('pem'), keys: { privateKey, publicKey } };
  const covered = [...new Set([...loopbackHosts, ...hosts])];
  const notAfter = new Date(Math.min(caCertificate.notAfter.getTime(), now.getTime() + 90 * dayMs));
  const issued = await issueCertificate(ca, name, covered, { notBefore: new Date(now.getTime() - 60_000), notAfter });
  const services = join(folder, 'services');
  mkdirSync(services, { recursive: true, mode: 0o700 });
  chmodSync(services, 0o700);
  const service = { caFile: files.caFile, certFile: join(services, `${name}.pem`), keyFile: join(services, `${name}-key.pem`) };
  writeAtomically(service.keyFile, issued.privateKeyPem, 0o600);
  writeAtomically(service.certFile, issued.certificatePem, 0o644);
  return service;
}
