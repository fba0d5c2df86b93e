// An HTTP service's optional TLS listener: the back channel other services reach it on across a
// network (a container network), beside its plain http one, which stays for loopback clients. One
// certificate and key pair per service (HTTP_TLS_CERT_FILE, HTTP_TLS_KEY_FILE), checked at start so
// a wrong file is one start-up line naming the variable and the file, never key material.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { RequestListener } from 'node:http';
import { setting } from '../settings/vocabulary.ts';

/** An HTTP service's TLS listener: its port, certificate and key. */
export interface HttpTlsSettings {
  /** Where the TLS listener listens (the service's host), and on which port. */
  readonly port: number;
  /** This service's certificate (its chain after it) and private key, PEM. */
  readonly certFile: string;
  readonly keyFile: string;
}

/** The pair of files; each service names its own TLS port (PLATFORM_TLS_PORT, WEBHOOK_API_TLS_PORT). */
export const httpTlsShape = {
  HTTP_TLS_CERT_FILE: setting.file.optional(),
  HTTP_TLS_KEY_FILE: setting.file.optional(),
};

/** The HTTP_TLS_* variables as parsed, before they are checked together. */
export interface HttpTlsValues {
  readonly HTTP_TLS_CERT_FILE?: string | undefined;
  readonly HTTP_TLS_KEY_FILE?: string | undefined;
}

/** Why the pair cannot serve TLS (a file that does not parse, a key of another certificate); undefined when it can. */
function pairProblem(certFile: string, keyFile: string, now: Date): readonly [string, string] | undefined {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(readFileSync(certFile));
  } catch {
    return ['HTTP_TLS_CERT_FILE', `${certFile} is not a PEM certificate`];
  }
  if (new Date(certificate.validTo).getTime() <= now.getTime()) return ['HTTP_TLS_CERT_FILE', `${certFile} expired on ${certificate.validTo}`];
  try {
    if (!certificate.checkPrivateKey(createPrivateKey(readFileSync(keyFile)))) return ['HTTP_TLS_KEY_FILE', `${keyFile} is not the key of ${certFile}`];
  } catch {
    return ['HTTP_TLS_KEY_FILE', `${keyFile} is not a PEM private key without a passphrase`];
  }
  return undefined;
}

/**
 * The TLS listener's problems across variables: the port and both files come together, and the
 * files must make a pair. `port` is the service's TLS port variable's name and value.
 */
export function* httpTlsProblems(
  values: Partial<HttpTlsValues>,
  port: { readonly variable: string; readonly value: number | undefined },
  now = new Date(),
): Generator<readonly [string, string]> {
  const { HTTP_TLS_CERT_FILE: certFile, HTTP_TLS_KEY_FILE: keyFile } = values;
  const needs = `needs ${port.variable}, HTTP_TLS_CERT_FILE and HTTP_TLS_KEY_FILE together`;
  if (port.value === undefined) {
    if (certFile !== undefined || keyFile !== undefined) yield [certFile !== undefined ? 'HTTP_TLS_CERT_FILE' : 'HTTP_TLS_KEY_FILE', needs];
    return;
  }
  if (certFile === undefined) yield ['HTTP_TLS_CERT_FILE', `is required with ${port.variable}`];
  if (keyFile === undefined) yield ['HTTP_TLS_KEY_FILE', `is required with ${port.variable}`];
  if (certFile !== undefined && keyFile !== undefined) {
    const problem = pairProblem(certFile, keyFile, now);
    if (problem) yield problem;
  }
}

/** The listener's settings, or undefined when the service has none. */
export function toHttpTlsSettings(values: HttpTlsValues, port: number | undefined): HttpTlsSettings | undefined {
  if (port === undefined || values.HTTP_TLS_CERT_FILE === undefined || values.HTTP_TLS_KEY_FILE === undefined) return undefined;
  return Object.freeze({ port, certFile: values.HTTP_TLS_CERT_FILE, keyFile: values.HTTP_TLS_KEY_FILE });
}

/** An https server for `app` with the certificate and key read now (a renewed pair is served after a restart). */
export function createHttpsServer(app: RequestListener, tls: Pick<HttpTlsSettings, 'certFile' | 'keyFile'>): Server {
  return createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, app);
}
