// The webhook API's persistence, one interface over SQLite (the embedded default) and PostgreSQL.
// Conflicts, limits and rows that vanished in a race come back as values, not exceptions, so
// callers answer 404 or 409 without guessing at driver error codes; an outage throws
// StoreUnavailableError.
import type { ConfigFields, DeviceLink, Scope, ScopeRoute, SigningSecrets, StoredConfig } from './records.ts';

/** At most `limit` items after the position `after` (a previous page's `next`), in creation order. */
export interface PageRequest {
  readonly limit: number;
  readonly after?: number | undefined;
}

/** A page of items; `next` is the position to ask for the following page, undefined on the last. */
export interface Page<T> {
  readonly items: T[];
  readonly next: number | undefined;
}

/** The parent row went away (deleted by a concurrent request) before the child could be added. */
export type NotFound = 'not-found';
/** The parent already holds as many children as `limit` allows. */
export type LimitReached = 'limit-reached';

/** What is kept of a deleted configuration, beside its attempt log: whose it was, and when it was deleted. */
export interface DeletedConfig {
  readonly id: string;
  readonly companyId: number;
  readonly deletedAt: number;
}

export interface WebhookStore {
  /** With `limit`, refuses the configuration when its company already has that many. It starts with its current signing secret alone. */
  createConfig(config: StoredConfig, limit?: number): Promise<StoredConfig | LimitReached>;
  getConfig(id: string): Promise<StoredConfig | undefined>;
  listConfigs(companyId: number): Promise<StoredConfig[]>;
  pageConfigs(companyId: number, page: PageRequest): Promise<Page<StoredConfig>>;
  /**
   * Replaces every field; undefined when the configuration does not exist. Given a function, the
   * fields are computed from the configuration as it is inside the transaction, with the row
   * locked, so concurrent updates apply one after the other and none is lost; what the function
   * throws rolls the update back.
   */
  updateConfig(id: string, change: ConfigFields | ((current: StoredConfig) => ConfigFields)): Promise<StoredConfig | undefined>;
  /**
   * Replaces the signing secrets with what `rotate` makes of them, read and written under the row's
   * lock; undefined when the configuration does not exist.
   */
  rotateSigningSecret(id: string, rotate: (current: SigningSecrets) => SigningSecrets): Promise<SigningSecrets | undefined>;
  /**
   * Deletes the configuration with its links and scopes; what it still had to deliver is failed,
   * and its attempt log is kept (getDeletedConfig) until retention prunes it; false when it did not
   * exist. `check` sees it as it is, under the row's lock, first: what it throws deletes nothing.
   */
  deleteConfig(id: string, now?: number, check?: (current: StoredConfig) => void): Promise<boolean>;
  /** A configuration deleted at `deletedAt` (epoch ms) whose attempt log is still kept; undefined otherwise. */
  getDeletedConfig(id: string): Promise<DeletedConfig | undefined>;

  /** With `limit`, refuses the link when the configuration already links that many devices. */
  linkDevice(link: DeviceLink, limit?: number): Promise<DeviceLink | 'already-linked' | NotFound | LimitReached>;
  getLink(webhookConfigId: string, deviceId: number): Promise<DeviceLink | undefined>;
  listLinks(webhookConfigId: string): Promise<DeviceLink[]>;
  pageLinks(webhookConfigId: string, page: PageRequest): Promise<Page<DeviceLink>>;
  /** Removes the link with its scopes, and the device's points from every delivery still queued; false when there was none. */
  unlinkDevice(webhookConfigId: string, deviceId: number): Promise<boolean>;

  /** With `limit`, refuses the scope when the link already carries that many. */
  createScope(
    webhookConfigId: string,
    deviceId: number,
    scope: ScopeRoute & { id: string },
    limit?: number,
  ): Promise<Scope | 'duplicate' | NotFound | LimitReached>;
  listScopes(webhookConfigId: string, deviceId: number): Promise<Scope[]>;
  pageScopes(webhookConfigId: string, deviceId: number, page: PageRequest): Promise<Page<Scope>>;
  updateScope(webhookConfigId: string, deviceId: number, scope: ScopeRoute & { id: string }): Promise<Scope | 'duplicate' | undefined>;
  deleteScope(webhookConfigId: string, deviceId: number, scopeId: string): Promise<boolean>;

  /**
   * The key ids every stored credential and signing secret still in use is encrypted under
   * (`v1.<keyId>.<iv>.<tag>.<ct>`), each once, sorted: at start-up each must be in the key ring, or
   * deliveries using it could not be sent.
   */
  encryptionKeyIdsInUse(): Promise<string[]>;
  /** Number of configurations of every company (tests use it to prove a refused request stored nothing). */
  countConfigs(): Promise<number>;
  close(): Promise<void>;
}
