// gRPC over TLS from the GRPC_TLS_* files: server and channel credentials built on grpc-js's
// certificate provider, which reads the files again every reload interval (a renewed certificate
// is served to the next connection, no restart), and the words for a refused handshake, so that a
// log line says which peer was refused and why, rather than "No connection established".
import * as grpc from '@grpc/grpc-js';
import type { TLSSocket } from 'node:tls';
import type { GrpcTlsSettings } from './tls-settings.ts';

/** Credentials built from GrpcTlsSettings, for this process's gRPC server and for what it dials. */
export interface GrpcTls {
  /** For this process's gRPC server: its certificate, and a client's required when the settings say so. */
  readonly serverCredentials: grpc.ServerCredentials;
  /** For the gRPC this process dials: the peer must chain to the CA and be for the host dialled; this process's certificate is shown when asked. */
  readonly channelCredentials: grpc.ChannelCredentials;
  readonly requireClientCert: boolean;
  /** Resolves once the files were read the first time, so that a server bound after it takes its first connection. */
  ready(): Promise<void>;
}

let warningFiltered = false;

/**
 * grpc-js sends the host dialled as the TLS server name even when it is an IP address (127.0.0.1),
 * which Node warns about once per process (DEP0123) although the certificate's IP addresses are
 * what is checked; that one warning is dropped, every other passes.
 */
function quietIpServerNameWarning(): void {
  if (warningFiltered) return;
  warningFiltered = true;
  const emitWarning = process.emitWarning.bind(process);
  process.emitWarning = (warning: string | Error, ...rest: unknown[]) => {
    const [type, code] = rest;
    const optionsCode = type !== null && typeof type === 'object' && 'code' in type ? type.code : undefined;
    if (code === 'DEP0123' || optionsCode === 'DEP0123') return;
    Reflect.apply(emitWarning, process, [warning, ...rest]);
  };
}

/** Server and channel credentials from the GRPC_TLS_* files, read again every reload interval. */
export function createGrpcTls(settings: GrpcTlsSettings): GrpcTls {
  const provider = new grpc.experimental.FileWatcherCertificateProvider({
    caCertificateFile: settings.caFile,
    certificateFile: settings.certFile,
    privateKeyFile: settings.keyFile,
    refreshIntervalMs: settings.reloadMs,
  });
  // grpc-js 1.14 passes the first argument on as the identity provider and the second as the CA's,
  // the reverse of its declaration: one provider serves both, whichever way round. The server asks
  // every client for a certificate and Node does not cut the ones it refuses: guardTlsHandshakes
  // does, where the reason can be logged (Node would cut them without a word).
  const serverCredentials = grpc.experimental.createCertificateProviderServerCredentials(provider, provider, false);
  quietIpServerNameWarning();
  const channelCredentials = grpc.experimental.createCertificateProviderChannelCredentials(provider, provider);
  return {
    serverCredentials,
    channelCredentials,
    requireClientCert: settings.requireClientCert,
    ready: () =>
      new Promise<void>((resolve) => {
        const loaded = () => {
          provider.removeIdentityCertificateListener(loaded);
          resolve();
        };
        provider.addIdentityCertificateListener(loaded);
      }),
  };
}

/** Server credentials: TLS when configured, plaintext otherwise (the settings kept plaintext on loopback). */
export const serverCredentialsOf = (tls: GrpcTls | undefined): grpc.ServerCredentials => tls?.serverCredentials ?? grpc.ServerCredentials.createInsecure();

/** Channel credentials: TLS when configured, plaintext otherwise (the settings kept plaintext on loopback). */
export const channelCredentialsOf = (tls: GrpcTls | undefined): grpc.ChannelCredentials => tls?.channelCredentials ?? grpc.credentials.createInsecure();

/** Known handshake failures, as grpc-js and Node word them, and what they mean for the side that dialled. */
const dialledRefusals: readonly (readonly [RegExp, string])[] = [
  [/certificate has expired|CERT_HAS_EXPIRED/i, "the peer's certificate has expired"],
  [/certificate is not yet valid|CERT_NOT_YET_VALID/i, "the peer's certificate is not valid yet"],
  [/Hostname\/IP does not match|ERR_TLS_CERT_ALTNAME_INVALID|altnames/i, "the peer's certificate is not for the host dialled"],
  [
    /self[- ]signed certificate|unable to verify the first certificate|unable to get local issuer certificate|unable to get issuer certificate|certificate signature failure/i,
    "the peer's certificate does not chain to GRPC_TLS_CA_FILE",
  ],
  [/certificate required|alert number 116/i, 'the peer requires a client certificate and this process has none it accepts'],
  [/unknown ca|alert number 48/i, "the peer does not accept this process's certificate (it does not chain to the peer's CA)"],
  [/bad certificate|alert number 42|certificate unknown|alert number 46/i, "the peer refused this process's certificate"],
  [
    /wrong version number|packet length too long|http\/1\.1|unexpected eof|ECONNRESET.*before secure TLS|before secure TLS connection/i,
    'the peer does not speak TLS, or refused the handshake',
  ],
  [/Failed to load credentials/i, 'the certificate files could not be read (GRPC_TLS_*)'],
  // Under TLS 1.3 a server refuses a client's certificate after the client's part of the handshake is done: the client sees the connection close.
  [
    /Last error: Failed to connect/i,
    "the peer closed the connection as it was set up: it may require TLS, or a client certificate this process does not have or it does not accept (see the peer's log)",
  ],
];

/** What a failed call's details say about a TLS handshake, in words; undefined when it was not one. */
export function tlsRefusalReason(details: string): string | undefined {
  return dialledRefusals.find(([pattern]) => pattern.test(details))?.[1];
}

/** Why a client's handshake failed, as this server saw it (the client's own reasons stay with it). */
function servedRefusalReason(error: Error): string {
  const said = `${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}`;
  if (/WRONG_VERSION_NUMBER|HTTP_REQUEST|UNEXPECTED_MESSAGE|wrong version number|http request/i.test(said))
    return 'the client does not speak TLS (a plaintext client)';
  if (/ECONNRESET|socket hang up/i.test(said)) return "the client ended the handshake (it may not trust this server's certificate: see its log)";
  return `the handshake failed (${error.message.slice(0, 120)})`;
}

/** Why this server refused a client's certificate, from Node's verification code. */
function clientCertificateProblem(code: string | undefined): string {
  if (code === undefined) return 'the client showed no certificate (GRPC_TLS_REQUIRE_CLIENT_CERT is on)';
  if (code === 'CERT_HAS_EXPIRED') return "the client's certificate has expired";
  if (code === 'CERT_NOT_YET_VALID') return "the client's certificate is not valid yet";
  return `the client's certificate does not chain to GRPC_TLS_CA_FILE (${code})`;
}

interface HandshakingServer {
  on(event: 'tlsClientError', listener: (error: Error, socket: TLSSocket) => void): unknown;
  prependListener(event: 'secureConnection', listener: (socket: TLSSocket) => void): unknown;
}

/** A TLS handshake refused: which peer, and why in words. */
export interface TlsRefusal {
  /** The client, host:port, when still known. */
  readonly peer: string;
  readonly reason: string;
  /** A refusal of this side's decision (a client certificate), rather than a client that gave up. */
  readonly refusedHere: boolean;
}

/**
 * Guards a gRPC server bound with `tls`: a client without a certificate that chains to the CA is
 * cut as its handshake ends, before HTTP/2 reads a byte of it (no call, no token), when the
 * settings require one; every refused handshake is reported with the client's address and why.
 * grpc-js keeps its HTTP/2 servers to itself: they are found where grpc-js 1.14 holds them, and a
 * server whose listeners cannot be found is refused rather than left without the check.
 */
export function guardTlsHandshakes(server: grpc.Server, tls: GrpcTls, onRefusal: (refusal: TlsRefusal) => void): void {
  const held = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(held instanceof Map) || held.size === 0) {
    throw new Error('cannot watch the TLS handshakes of this grpc-js version; GRPC_TLS_REQUIRE_CLIENT_CERT cannot be enforced');
  }
  const peerOf = (socket: TLSSocket) => (socket.remoteAddress === undefined ? 'a client' : `${socket.remoteAddress}:${String(socket.remotePort)}`);
  for (const listener of held.keys() as IterableIterator<HandshakingServer>) {
    listener.on('tlsClientError', (error, socket) => {
      onRefusal({ peer: peerOf(socket), reason: servedRefusalReason(error), refusedHere: false });
    });
    if (!tls.requireClientCert) continue;
    // First among the listeners: HTTP/2 never sees a connection cut here.
    listener.prependListener('secureConnection', (socket) => {
      if (socket.authorized) return;
      // Node types it an Error; at run time it is the verification code (UNABLE_TO_VERIFY_LEAF_SIGNATURE...), or null.
      const said = socket.authorizationError as unknown;
      const code = typeof said === 'string' ? said : said instanceof Error ? ((said as NodeJS.ErrnoException).code ?? said.message) : undefined;
      const shown = Object.keys(socket.getPeerCertificate()).length > 0;
      onRefusal({ peer: peerOf(socket), reason: clientCertificateProblem(shown ? code : undefined), refusedHere: true });
      socket.destroy();
    });
  }
}
