// Rows of either dialect to the API's objects: one mapping for both stores. SQLite answers 0/1 for
// booleans; PostgreSQL answers booleans (its int8 and timestamptz come as numbers and ISO text).
import type { ConfigFields, DeviceLink, Scope, StoredConfig } from './records.ts';
import type { SqlRow, SqlValue } from './sql-driver.ts';

/** The columns each mapping reads, for the SELECT and RETURNING lists. */
export const configColumns =
  'id, company_id, name, url, method, delivery_mode, auth_type, auth_payload_encrypted, custom_headers, include_metadata_headers, include_retry_header, ' +
  'signing_secret_encrypted, previous_signing_secret_encrypted, previous_signing_secret_until, status, disabled_reason, disabled_at, failing_since, failed_attempts, rate_limit_per_second, paused_until, ordering';
export const linkColumns = 'webhook_config_id, device_id, created_at';
export const scopeColumns = 'id, scope_level, connection_tag, measurement, enabled';

const text = (value: unknown): string => {
  if (typeof value !== 'string') throw new TypeError(`expected text in a row, found ${typeof value}`);
  return value;
};
const textOrNull = (value: unknown): string | null => (value === null ? null : text(value));
const flag = (value: unknown): boolean => value === true || value === 1;
const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** A configuration's status fields, in the order of the update's status, disabled_reason and disabled_at. */
export const statusValues = (f: ConfigFields): SqlValue[] => [f.status, f.disabledReason, f.disabledAt];

/** A configuration's delivery options, in the order of rate_limit_per_second and ordering. */
export const optionValues = (f: ConfigFields): SqlValue[] => [f.rateLimitPerSecond, f.ordering];

/** A configuration's fields in the order of configColumns after id and company_id. */
export const configValues = (f: ConfigFields): SqlValue[] => [
  f.name,
  f.url,
  f.method,
  f.deliveryMode,
  f.authType,
  f.authPayloadEncrypted,
  f.customHeaders,
  f.includeMetadataHeaders,
  f.includeRetryHeader,
];

export const toConfig = (r: SqlRow): StoredConfig => ({
  id: text(r.id),
  companyId: Number(r.company_id),
  name: text(r.name),
  url: text(r.url),
  method: text(r.method) as StoredConfig['method'],
  deliveryMode: text(r.delivery_mode) as StoredConfig['deliveryMode'],
  authType: text(r.auth_type) as StoredConfig['authType'],
  authPayloadEncrypted: textOrNull(r.auth_payload_encrypted),
  customHeaders: textOrNull(r.custom_headers),
  includeMetadataHeaders: flag(r.include_metadata_headers),
  includeRetryHeader: flag(r.include_retry_header),
  signingSecrets: {
    current: text(r.signing_secret_encrypted),
    previous: textOrNull(r.previous_signing_secret_encrypted),
    previousUntil: r.previous_signing_secret_until === null ? null : Number(r.previous_signing_secret_until),
  },
  status: r.status === 'Disabled' ? 'Disabled' : 'Active',
  disabledReason: textOrNull(r.disabled_reason ?? null),
  disabledAt: textOrNull(r.disabled_at ?? null),
  rateLimitPerSecond: numberOrNull(r.rate_limit_per_second),
  ordering: r.ordering === 'PerDevice' ? 'PerDevice' : 'None',
  health: { failingSince: numberOrNull(r.failing_since), failedAttempts: Number(r.failed_attempts ?? 0), pausedUntil: numberOrNull(r.paused_until) },
});

export const toLink = (r: SqlRow): DeviceLink => ({ deviceId: Number(r.device_id), webhookConfigId: text(r.webhook_config_id), createdAt: text(r.created_at) });

export const toScope = (r: SqlRow): Scope => ({
  id: text(r.id),
  scopeLevel: text(r.scope_level) as Scope['scopeLevel'],
  connectionTag: textOrNull(r.connection_tag),
  measurement: textOrNull(r.measurement),
  enabled: flag(r.enabled),
});
