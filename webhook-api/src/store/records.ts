// The webhook service's records as every layer sees them: a configuration, a device link, a scope,
// and the closed vocabularies their fields take. The HTTP schemas validate into these shapes; the
// store reads and writes them; the deliverer sends from them.

export const httpMethods = ['POST', 'PUT', 'PATCH'] as const;
export const deliveryModes = ['Realtime', 'Batch'] as const;
export const authTypes = ['None', 'Bearer', 'ApiKey', 'Basic', 'Custom'] as const;
export const scopeLevels = ['Device', 'Connection', 'Measurement'] as const;
/** Active: delivered to. Disabled: by a manager, or by the deliverers when the endpoint is gone or keeps failing. */
export const configStatuses = ['Active', 'Disabled'] as const;
/** None: deliveries go as they come. PerDevice: one at a time per device (per batch stream for Batch), in ingest order. */
export const orderings = ['None', 'PerDevice'] as const;

export type HttpMethod = (typeof httpMethods)[number];
export type DeliveryMode = (typeof deliveryModes)[number];
export type AuthType = (typeof authTypes)[number];
export type ScopeLevel = (typeof scopeLevels)[number];
export type ConfigStatus = (typeof configStatuses)[number];
export type Ordering = (typeof orderings)[number];

/** A configuration as the API shows it: never its credentials. */
export interface WebhookConfig {
  readonly id: string;
  readonly companyId: number;
  readonly name: string;
  readonly url: string;
  readonly method: HttpMethod;
  readonly deliveryMode: DeliveryMode;
  readonly authType: AuthType;
  readonly customHeaders: string | null;
  readonly includeMetadataHeaders: boolean;
  readonly includeRetryHeader: boolean;
  /** Whether deliveries are made: new points are not queued for a disabled configuration, and what was queued waits. */
  readonly status: ConfigStatus;
  /** Why it is disabled (null while active). */
  readonly disabledReason: string | null;
  /** When it was disabled, ISO 8601 UTC (null while active). */
  readonly disabledAt: string | null;
  /** At most this many requests a second to the endpoint, all deliverers together (a Batch request counts once); null: no limit. */
  readonly rateLimitPerSecond: number | null;
  /** PerDevice: the deliveries of one device (one batch stream) go one at a time, in ingest order; a retrying one holds back the later ones of its stream only. */
  readonly ordering: Ordering;
}

/**
 * How the endpoint has fared lately, kept by the deliverers (never written by a PUT): the start of
 * the current run of failed attempts, and how many it holds. Both reset by a delivered attempt.
 */
export interface EndpointHealth {
  /** When the first attempt of the current failing run started (epoch ms); null when the last attempt delivered. */
  readonly failingSince: number | null;
  readonly failedAttempts: number;
  /** The endpoint answered 429: nothing is sent to it before this time (epoch ms). */
  readonly pausedUntil: number | null;
}

/** The health of a new configuration, or of one whose last attempt delivered. */
export const healthyEndpoint: EndpointHealth = Object.freeze({ failingSince: null, failedAttempts: 0, pausedUntil: null });

/**
 * The secrets a configuration's deliveries are signed with (Standard Webhooks), encrypted by the
 * CredentialVault: the current one, and for a while after a rotation the one it replaced.
 */
export interface SigningSecrets {
  readonly current: string;
  readonly previous: string | null;
  /** Until when (epoch ms) the previous secret signs too. */
  readonly previousUntil: number | null;
}

/** A configuration as stored: the public fields plus the encrypted credentials and signing secrets. */
export interface StoredConfig extends WebhookConfig {
  /** authPayload encrypted by the CredentialVault, or null. Never leaves the service. */
  readonly authPayloadEncrypted: string | null;
  readonly signingSecrets: SigningSecrets;
  readonly health: EndpointHealth;
}

/** What an update writes: every field but the identity, the signing secrets (rotated on their own) and the health (the deliverers'). */
export type ConfigFields = Omit<StoredConfig, 'id' | 'companyId' | 'signingSecrets' | 'health'>;

export interface DeviceLink {
  readonly deviceId: number;
  readonly webhookConfigId: string;
  /** ISO 8601 UTC. */
  readonly createdAt: string;
}

/** A scope's routing rule, as the scope-level rules leave it (empty text is null). */
export interface ScopeRoute {
  readonly scopeLevel: ScopeLevel;
  readonly connectionTag: string | null;
  readonly measurement: string | null;
  readonly enabled: boolean;
}

export interface Scope extends ScopeRoute {
  readonly id: string;
}
