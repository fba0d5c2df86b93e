// The GRPC_TLS_* variables, read by the tool SDK and the gateway alike: the CA a peer's certificate
// must chain to, this process's certificate and key, and whether its gRPC server asks every client
// for a certificate. The files are checked once at start, so that a wrong one is one start-up line
// naming the variable and the file (never a line of key material), not a handshake that fails later.
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { CrossCheck, Environment } from '../settings/vocabulary.ts';
import { setting } from '../settings/vocabulary.ts';

/** gRPC over TLS as the GRPC_TLS_* variables set it: the files, mutual TLS, the reload interval. */
export interface GrpcTlsSettings {
  /** PEM bundle of the CA (or CAs) a peer's certificate must chain to. */
  readonly caFile: string;
  /** This process's certificate (its chain after it): served, and shown to a server that asks. */
  readonly certFile: string;
  /** This process's private key, PEM, for `certFile`. */
  readonly keyFile: string;
  /** This process's gRPC server refuses a client without a certificate chaining to the CA. */
  readonly requireClientCert: boolean;
  /** How often the files are read again, so that a renewed certificate is used without a restart. */
  readonly reloadMs: number;
}

/** The GRPC_TLS_* variables in the settings vocabulary, for a service's settings loader to spread into its own. */
export const grpcTlsShape = {
  GRPC_TLS_CA_FILE: setting.file.optional(),
  GRPC_TLS_CERT_FILE: setting.file.optional(),
  GRPC_TLS_KEY_FILE: setting.file.optional(),
  GRPC_TLS_REQUIRE_CLIENT_CERT: setting.flag.default(false),
  GRPC_TLS_RELOAD_SECONDS: setting.wholeNumber(1, 'seconds', 86_400).default(60),
};

/** The GRPC_TLS_* variables as parsed, before they are checked together. */
export interface GrpcTlsValues {
  readonly GRPC_TLS_CA_FILE?: string | undefined;
  readonly GRPC_TLS_CERT_FILE?: string | undefined;
  readonly GRPC_TLS_KEY_FILE?: string | undefined;
  readonly GRPC_TLS_REQUIRE_CLIENT_CERT?: boolean | undefined;
  readonly GRPC_TLS_RELOAD_SECONDS?: number | undefined;
}

const fileVariables = ['GRPC_TLS_CA_FILE', 'GRPC_TLS_CERT_FILE', 'GRPC_TLS_KEY_FILE'] as const;

/** Whether the environment asks for TLS at all (any certificate variable set, readable or not). */
export function grpcTlsAsked(env: Environment): boolean {
  return fileVariables.some((name) => Boolean(env[name]?.trim()));
}

const pemBlocks = (text: string, label: string) => text.match(new RegExp(`-----BEGIN ${label}-----[^-]+-----END ${label}-----`, 'g')) ?? [];

/** The certificates of a PEM file, or why it holds none that parse. */
function readCertificates(path: string): X509Certificate[] | string {
  const blocks = pemBlocks(readFileSync(path, 'latin1'), 'CERTIFICATE');
  if (blocks.length === 0) return `${path} is not a PEM certificate`;
  try {
    return blocks.map((block) => new X509Certificate(block));
  } catch {
    return `${path} holds a PEM certificate that does not parse`;
  }
}

function readPrivateKey(path: string): KeyObject | string {
  try {
    return createPrivateKey(readFileSync(path));
  } catch (error) {
    // Node's message never quotes the key; it is still not repeated, only its kind of problem.
    const encrypted = /passphrase/i.test((error as Error).message);
    return encrypted ? `${path} is an encrypted key (give the key without a passphrase)` : `${path} is not a PEM private key`;
  }
}

/**
 * What is wrong with the GRPC_TLS_* variables as a whole, given what parsed and the raw
 * environment (a file that could not be read was named already and is not named again).
 */
export function grpcTlsProblems(values: Partial<GrpcTlsValues>, env: Environment, now = new Date()): Iterable<readonly [string, string]> {
  const problems: (readonly [string, string])[] = [];
  const { GRPC_TLS_CA_FILE: caFile, GRPC_TLS_CERT_FILE: certFile, GRPC_TLS_KEY_FILE: keyFile } = values;
  const given = (name: (typeof fileVariables)[number]) => Boolean(env[name]?.trim());
  if (!grpcTlsAsked(env)) {
    if (values.GRPC_TLS_REQUIRE_CLIENT_CERT)
      problems.push(['GRPC_TLS_REQUIRE_CLIENT_CERT', 'needs GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE']);
    return problems;
  }
  if (given('GRPC_TLS_CERT_FILE') !== given('GRPC_TLS_KEY_FILE')) {
    const [set, unset] = given('GRPC_TLS_CERT_FILE') ? ['GRPC_TLS_CERT_FILE', 'GRPC_TLS_KEY_FILE'] : ['GRPC_TLS_KEY_FILE', 'GRPC_TLS_CERT_FILE'];
    problems.push([set, `is set without ${unset}: give this process's certificate and its private key together`]);
  } else if (!given('GRPC_TLS_CERT_FILE')) {
    problems.push(['GRPC_TLS_CERT_FILE', 'and GRPC_TLS_KEY_FILE are required with GRPC_TLS_CA_FILE: this process serves gRPC over TLS with them']);
  }
  if (!given('GRPC_TLS_CA_FILE')) problems.push(['GRPC_TLS_CA_FILE', 'is required with GRPC_TLS_CERT_FILE: the peers are checked against it']);

  if (caFile !== undefined) {
    const authorities = readCertificates(caFile);
    if (typeof authorities === 'string') problems.push(['GRPC_TLS_CA_FILE', authorities]);
  }
  const certificates = certFile === undefined ? undefined : readCertificates(certFile);
  if (typeof certificates === 'string') problems.push(['GRPC_TLS_CERT_FILE', certificates]);
  const leaf = Array.isArray(certificates) ? certificates[0] : undefined;
  if (leaf && certFile !== undefined) {
    if (new Date(leaf.validTo) <= now) problems.push(['GRPC_TLS_CERT_FILE', `${certFile} holds a certificate that expired on ${leaf.validTo}`]);
    else if (new Date(leaf.validFrom) > now) problems.push(['GRPC_TLS_CERT_FILE', `${certFile} holds a certificate not valid before ${leaf.validFrom}`]);
  }
  const key = keyFile === undefined ? undefined : readPrivateKey(keyFile);
  if (typeof key === 'string') problems.push(['GRPC_TLS_KEY_FILE', key]);
  else if (key && leaf && !leaf.checkPrivateKey(key)) {
    problems.push(['GRPC_TLS_KEY_FILE', `${keyFile ?? ''} does not match the certificate in GRPC_TLS_CERT_FILE (${certFile ?? ''})`]);
  }
  return problems;
}

/** The cross-check of a loader whose shape includes grpcTlsShape. */
export const grpcTlsCrossCheck =
  (env: Environment): CrossCheck<GrpcTlsValues> =>
  (values) =>
    grpcTlsProblems(values, env);

/** The settings, once the values passed grpcTlsProblems; undefined when TLS is not asked for. */
export function toGrpcTlsSettings(values: GrpcTlsValues): GrpcTlsSettings | undefined {
  const { GRPC_TLS_CA_FILE: caFile, GRPC_TLS_CERT_FILE: certFile, GRPC_TLS_KEY_FILE: keyFile } = values;
  if (caFile === undefined || certFile === undefined || keyFile === undefined) return undefined;
  return Object.freeze({
    caFile,
    certFile,
    keyFile,
    requireClientCert: values.GRPC_TLS_REQUIRE_CLIENT_CERT ?? false,
    reloadMs: (values.GRPC_TLS_RELOAD_SECONDS ?? 60) * 1000,
  });
}
