// The webhook service's records as every layer sees them: a configuration, a device link, a scope,
// and the closed vocabularies their fields take. The HTTP schemas validate into these shapes; the
// store reads and writes them; the deliverer sends from them.

export const httpMethods = ['POST', 'PUT', 'PATCH'] as const;
export const deliveryModes = ['Realtime', 'Batch'] as const;
export const authTypes = ['None', 'Bearer', 'ApiKey', 'Basic', 'Custom'] as const;
export const scopeLevels = ['Device', 'Connection', 'Measurement'] as const;

export type HttpMethod = (typeof httpMethods)[number];
export type DeliveryMode = (typeof deliveryModes)[number];
export type AuthType = (typeof authTypes)[number];
export type ScopeLevel = (typeof scopeLevels)[number];

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
}

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
}

/** What an update writes: every field but the identity and the signing secrets (rotated on their own). */
export type ConfigFields = Omit<StoredConfig, 'id' | 'companyId' | 'signingSecrets'>;

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
