// npm start's gRPC certificates: mutual TLS between the gateway and the tool service, as production
// runs it. The operator's own GRPC_TLS_* files when set (nothing is generated then); otherwise a
// development CA and certificates under the stack's data folder (data/tls), issued on the first
// start and again when they near their end or the gRPC hosts change.
import { resolve } from 'node:path';
import { devCertificateFiles, ensureDevCertificates, type DevCertificateFiles } from '@platform/devtools/dev-certificates';
import type { Environment } from '@platform/tool-sdk';

/** Where the development certificates are kept: beside the stack's other files. */
export const stackTlsFolder = (env: Environment): string => resolve(env.WEBHOOK_DATA_DIR || 'data', 'tls');

/** The host of host:port (an IPv6 address without its brackets). */
const hostOf = (address: string) => address.slice(0, address.lastIndexOf(':')).replace(/^\[(.*)\]$/, '$1');

/** The hosts the gateway and the tool service are dialled at, as the environment places them; wildcard binds are no host to dial. */
export function grpcHosts(env: Environment): string[] {
  const addresses = [env.REGISTRY_ADDRESS, env.CALLBACK_ADDRESS, env.GATEWAY_ADDRESS].filter((address): address is string => Boolean(address?.includes(':')));
  return [...new Set(addresses.map(hostOf))].filter((host) => host !== '0.0.0.0' && host !== '::' && host !== '');
}

export interface StackCertificates {
  /** The development certificates to pass on; undefined when the operator's GRPC_TLS_* are used as they are. */
  readonly files: DevCertificateFiles | undefined;
  /** What happened, for the runner's output. */
  readonly note: string;
}

export async function stackCertificates(env: Environment): Promise<StackCertificates> {
  if (env.GRPC_TLS_CA_FILE || env.GRPC_TLS_CERT_FILE || env.GRPC_TLS_KEY_FILE) {
    return { files: undefined, note: 'gRPC uses the GRPC_TLS_* certificates of the environment' };
  }
  const folder = stackTlsFolder(env);
  const { files, issuedBecause } = await ensureDevCertificates(folder, grpcHosts(env));
  return {
    files,
    note:
      issuedBecause === undefined
        ? `gRPC runs over mutual TLS with the development certificates in ${folder}`
        : `gRPC runs over mutual TLS: issued development certificates in ${folder} (${issuedBecause})`,
  };
}

/** The development certificates as they are (for a second terminal's example service); nothing is issued. */
export const existingStackCertificates = (env: Environment): DevCertificateFiles => devCertificateFiles(stackTlsFolder(env));
