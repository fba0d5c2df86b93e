// Turns a validated create or update body into stored fields: authPayload checked against its
// authType and encrypted (bound to the configuration id), customHeaders checked against what the
// authType sets. On update, authPayload null keeps the stored credentials, a value replaces them,
// an empty string clears them (authType must then be None).
import type { CredentialVault } from './credential-vault.ts';
import { authHeaderNames, checkAuthPayload, checkCustomHeaders } from './header-rules.ts';
import type { AuthType, ConfigFields, ConfigStatus, DeliveryMode, HttpMethod, Ordering, StoredConfig, WebhookConfig } from '../store/records.ts';
import { invalid } from './invalid-input.ts';

/** A create body, validated: what the fields are once their defaults are applied. */
export interface WebhookConfigInput {
  readonly name: string;
  readonly url: string;
  readonly method: HttpMethod;
  readonly deliveryMode: DeliveryMode;
  readonly authType: AuthType;
  readonly authPayload?: string | null | undefined;
  readonly customHeaders?: string | null | undefined;
  readonly includeMetadataHeaders: boolean;
  readonly includeRetryHeader: boolean;
  /** null or omitted: no limit (on update, omitted keeps the stored one and null removes it). */
  readonly rateLimitPerSecond?: number | null | undefined;
  /** None when omitted on create; kept when omitted on update. */
  readonly ordering?: Ordering | undefined;
}

/** An update body, validated: what is omitted keeps its stored value. */
export type WebhookConfigUpdate = Omit<WebhookConfigInput, 'method' | 'authType' | 'includeMetadataHeaders' | 'includeRetryHeader'> &
  Partial<Pick<WebhookConfigInput, 'method' | 'authType' | 'includeMetadataHeaders' | 'includeRetryHeader'>> & {
    readonly status?: ConfigStatus | undefined;
  };

/** Why a configuration is disabled when a manager disables it. */
export const disabledByRequest = 'disabled by a manager (PUT with status Disabled)';

/** The public view of a stored configuration: never the credentials. */
export function publicConfig(config: StoredConfig): WebhookConfig {
  return {
    id: config.id,
    companyId: config.companyId,
    name: config.name,
    url: config.url,
    method: config.method,
    deliveryMode: config.deliveryMode,
    authType: config.authType,
    customHeaders: config.customHeaders,
    includeMetadataHeaders: config.includeMetadataHeaders,
    includeRetryHeader: config.includeRetryHeader,
    status: config.status,
    disabledReason: config.disabledReason,
    disabledAt: config.disabledAt,
    rateLimitPerSecond: config.rateLimitPerSecond,
    ordering: config.ordering,
  };
}

/** The status a configuration takes: as it is when not given; disabled by request keeps an earlier reason and time. */
type StatusFields = Pick<ConfigFields, 'status' | 'disabledReason' | 'disabledAt'>;

const active: StatusFields = { status: 'Active', disabledReason: null, disabledAt: null };

function statusAfter(existing: StatusFields, asked: ConfigStatus | undefined, now: Date): StatusFields {
  if (asked === undefined || asked === existing.status)
    return { status: existing.status, disabledReason: existing.disabledReason, disabledAt: existing.disabledAt };
  return asked === 'Active' ? active : { status: 'Disabled', disabledReason: disabledByRequest, disabledAt: now.toISOString() };
}

function fields(input: WebhookConfigInput, authPayloadEncrypted: string | null, customHeaders: string | null, status: StatusFields): ConfigFields {
  return {
    name: input.name,
    url: input.url,
    method: input.method,
    deliveryMode: input.deliveryMode,
    authType: input.authType,
    authPayloadEncrypted,
    customHeaders,
    includeMetadataHeaders: input.includeMetadataHeaders,
    includeRetryHeader: input.includeRetryHeader,
    ...status,
    rateLimitPerSecond: input.rateLimitPerSecond ?? null,
    ordering: input.ordering ?? 'None',
  };
}

export function fieldsForCreate(id: string, input: WebhookConfigInput, vault: CredentialVault): ConfigFields {
  const payload = checkAuthPayload(input.authType, input.authPayload ?? null);
  const customHeaders = checkCustomHeaders(input.customHeaders, authHeaderNames(input.authType, payload));
  return fields(input, payload === null ? null : vault.encrypt(JSON.stringify(payload), id), customHeaders, active);
}

export function fieldsForUpdate(existing: StoredConfig, update: WebhookConfigUpdate, vault: CredentialVault, now = new Date()): ConfigFields {
  const input: WebhookConfigInput = {
    ...update,
    method: update.method ?? existing.method,
    authType: update.authType ?? existing.authType,
    includeMetadataHeaders: update.includeMetadataHeaders ?? existing.includeMetadataHeaders,
    includeRetryHeader: update.includeRetryHeader ?? existing.includeRetryHeader,
    rateLimitPerSecond: update.rateLimitPerSecond === undefined ? existing.rateLimitPerSecond : update.rateLimitPerSecond,
    ordering: update.ordering ?? existing.ordering,
  };
  const given = input.authPayload;
  let payload: Record<string, unknown> | null;
  let encrypted: string | null;
  if (given === undefined || given === null) {
    // Keep what is stored, if it still fits the authType.
    if (input.authType === 'None') {
      payload = null;
      encrypted = null;
    } else if (existing.authPayloadEncrypted !== null && existing.authType === input.authType) {
      payload = JSON.parse(vault.decrypt(existing.authPayloadEncrypted, existing.id)) as Record<string, unknown>;
      encrypted = existing.authPayloadEncrypted;
    } else {
      throw invalid(
        'authPayload',
        `is required when authType ${existing.authType === input.authType ? 'has no stored credentials' : `changes to ${input.authType}`}`,
      );
    }
  } else if (given === '') {
    if (input.authType !== 'None') throw invalid('authPayload', `cannot be cleared while authType is ${input.authType} (set authType None)`);
    payload = null;
    encrypted = null;
  } else {
    payload = checkAuthPayload(input.authType, given);
    encrypted = payload === null ? null : vault.encrypt(JSON.stringify(payload), existing.id);
  }
  const headersGiven = input.customHeaders;
  const headersText = headersGiven === undefined || headersGiven === null ? existing.customHeaders : headersGiven;
  const customHeaders = checkCustomHeaders(headersText, authHeaderNames(input.authType, payload));
  return fields(input, encrypted, customHeaders, statusAfter(existing, update.status, now));
}
