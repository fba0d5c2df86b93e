// What a registration's sealed token is bound to: everything a replica trusts from the row (its
// id, app, app key, service name, callback address, time to live, bytes, since when its service has
// been registered, and the tools it listed).
// The binding is the seal's associated data (token-seal.ts), so a row edited in the database (a
// callback address pointed elsewhere, another app or service name written in) no longer opens, and
// is refused rather than dialled: whoever can write the table cannot redirect the tokens it carries.
import { hash } from 'node:crypto';

/** The fields of a row the seal covers; `toolsDigest` is toolsDigest() of the tools' JSON as stored. */
export interface BoundFields {
  readonly registrationId: string;
  readonly appClientId: string;
  readonly appKey: string;
  readonly serviceName: string;
  readonly callbackAddress: string;
  readonly grantedTtlSeconds: number;
  readonly bytes: number;
  readonly since: number;
  readonly toolsDigest: string;
}

/** SHA-256 of the tools' JSON, in hex: what PostgreSQL's `encode(sha256(convert_to(tools, 'UTF8')), 'hex')` gives for the same text. */
export const toolsDigest = (toolsJson: string): string => hash('sha256', toolsJson, 'hex');

/** The SQL expression that gives a row's tools digest beside its columns. */
export const toolsDigestColumn = `encode(sha256(convert_to(tools, 'UTF8')), 'hex') AS tools_digest`;

/** The associated data of a row's sealed token: a JSON array, so no field can run into the next. */
export function rowBinding(fields: BoundFields): string {
  const { registrationId, appClientId, appKey, serviceName, callbackAddress, grantedTtlSeconds, bytes, since } = fields;
  return JSON.stringify([
    'registration v2',
    registrationId,
    appClientId,
    appKey,
    serviceName,
    callbackAddress,
    grantedTtlSeconds,
    bytes,
    since,
    fields.toolsDigest,
  ]);
}

/** The bound fields of a row as PostgreSQL returns it (with tools_digest). */
export const boundFieldsOf = (row: Record<string, unknown>): BoundFields => ({
  registrationId: String(row.registration_id),
  appClientId: String(row.app_client_id),
  appKey: String(row.app_key),
  serviceName: String(row.service_name),
  callbackAddress: String(row.callback_address),
  grantedTtlSeconds: Number(row.granted_ttl_seconds),
  bytes: Number(row.bytes),
  since: Number(row.since_ms),
  toolsDigest: String(row.tools_digest),
});
