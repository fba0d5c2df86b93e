// The webhook API's persistence, one interface over SQLite (the embedded default) and PostgreSQL.
// Conflicts come back as values, not exceptions, so callers answer 409 without guessing at driver
// error codes.
import type { ScopeRoute } from '../scope-rules.ts';
import type { DeviceLink, Scope, WebhookConfig } from '../schemas.ts';

/** A configuration as stored: the public fields plus the encrypted credentials. */
export interface StoredConfig extends WebhookConfig {
  /** authPayload encrypted by the CredentialVault, or null. Never leaves the service. */
  readonly authPayloadEncrypted: string | null;
}

export type ConfigFields = Omit<StoredConfig, 'id' | 'companyId'>;

export interface WebhookStore {
  createConfig(config: StoredConfig): Promise<StoredConfig>;
  getConfig(id: string): Promise<StoredConfig | undefined>;
  listConfigs(companyId: number): Promise<StoredConfig[]>;
  /** Replaces every field; undefined when the configuration does not exist. */
  updateConfig(id: string, fields: ConfigFields): Promise<StoredConfig | undefined>;
  /** Deletes the configuration with its links and scopes; false when it did not exist. */
  deleteConfig(id: string): Promise<boolean>;

  linkDevice(link: DeviceLink): Promise<DeviceLink | 'already-linked'>;
  getLink(webhookConfigId: string, deviceId: number): Promise<DeviceLink | undefined>;
  listLinks(webhookConfigId: string): Promise<DeviceLink[]>;
  /** Removes the link with its scopes; false when there was none. */
  unlinkDevice(webhookConfigId: string, deviceId: number): Promise<boolean>;

  createScope(webhookConfigId: string, deviceId: number, scope: ScopeRoute & { id: string }): Promise<Scope | 'duplicate'>;
  listScopes(webhookConfigId: string, deviceId: number): Promise<Scope[]>;
  updateScope(webhookConfigId: string, deviceId: number, scope: ScopeRoute & { id: string }): Promise<Scope | 'duplicate' | undefined>;
  deleteScope(webhookConfigId: string, deviceId: number, scopeId: string): Promise<boolean>;

  /** Number of configurations of every company (tests use it to prove a refused request stored nothing). */
  countConfigs(): Promise<number>;
  close(): Promise<void>;
}
