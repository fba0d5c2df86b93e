// The shared store: PostgreSQL (pg), so any number of webhook-api and deliverer processes can use
// one database. Creation order is a sequence column, never a timestamp.
import { createPostgresDriver } from './postgres-driver.ts';
import { companyConfigCountsMigration } from './company-config-counts.ts';
import { postgresDeliveryMigration } from './delivery-schema.ts';
import { runMigrations } from './run-migrations.ts';
import { createSqlWebhookStore } from './sql-webhook-store.ts';
import type { WebhookStore } from './webhook-store.ts';

export const postgresMigrations: readonly string[] = [
  `CREATE TABLE webhook_configs (
     id TEXT PRIMARY KEY,
     company_id BIGINT NOT NULL,
     name TEXT NOT NULL,
     url TEXT NOT NULL,
     method TEXT NOT NULL,
     delivery_mode TEXT NOT NULL,
     auth_type TEXT NOT NULL,
     auth_payload_encrypted TEXT,
     custom_headers TEXT,
     include_metadata_headers BOOLEAN NOT NULL,
     include_retry_header BOOLEAN NOT NULL,
     created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
     updated_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
   );
   CREATE INDEX webhook_configs_company ON webhook_configs (company_id, created_at, id);
   CREATE TABLE device_links (
     webhook_config_id TEXT NOT NULL REFERENCES webhook_configs (id) ON DELETE CASCADE,
     device_id BIGINT NOT NULL,
     created_at TIMESTAMPTZ NOT NULL,
     PRIMARY KEY (webhook_config_id, device_id)
   );
   CREATE INDEX device_links_device ON device_links (device_id);
   CREATE TABLE scopes (
     id TEXT PRIMARY KEY,
     webhook_config_id TEXT NOT NULL,
     device_id BIGINT NOT NULL,
     scope_level TEXT NOT NULL,
     connection_tag TEXT,
     measurement TEXT,
     enabled BOOLEAN NOT NULL,
     created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
     FOREIGN KEY (webhook_config_id, device_id) REFERENCES device_links (webhook_config_id, device_id) ON DELETE CASCADE
   );
   CREATE UNIQUE INDEX scopes_identical ON scopes (webhook_config_id, device_id, scope_level, COALESCE(connection_tag, ''), COALESCE(measurement, ''));`,
  // Creation order for paging: one sequence; rows made before it numbered in the order they were made.
  `CREATE SEQUENCE webhook_api_creation_order;
   ALTER TABLE webhook_configs ADD COLUMN seq BIGINT;
   ALTER TABLE device_links ADD COLUMN seq BIGINT;
   ALTER TABLE scopes ADD COLUMN seq BIGINT;
   UPDATE webhook_configs t SET seq = o.n FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM webhook_configs) o WHERE t.id = o.id;
   UPDATE device_links t SET seq = o.n
     FROM (SELECT webhook_config_id, device_id, row_number() OVER (ORDER BY created_at, device_id) AS n FROM device_links) o
     WHERE t.webhook_config_id = o.webhook_config_id AND t.device_id = o.device_id;
   UPDATE scopes t SET seq = o.n FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM scopes) o WHERE t.id = o.id;
   SELECT setval('webhook_api_creation_order', GREATEST(1, (SELECT COUNT(*) FROM webhook_configs), (SELECT COUNT(*) FROM device_links), (SELECT COUNT(*) FROM scopes)));
   ALTER TABLE webhook_configs ALTER COLUMN seq SET DEFAULT nextval('webhook_api_creation_order'), ALTER COLUMN seq SET NOT NULL;
   ALTER TABLE device_links ALTER COLUMN seq SET DEFAULT nextval('webhook_api_creation_order'), ALTER COLUMN seq SET NOT NULL;
   ALTER TABLE scopes ALTER COLUMN seq SET DEFAULT nextval('webhook_api_creation_order'), ALTER COLUMN seq SET NOT NULL;
   DROP INDEX webhook_configs_company;
   CREATE INDEX webhook_configs_company ON webhook_configs (company_id, seq);
   CREATE INDEX device_links_config ON device_links (webhook_config_id, seq);
   CREATE INDEX scopes_link ON scopes (webhook_config_id, device_id, seq);`,
  companyConfigCountsMigration,
  postgresDeliveryMigration,
];

export interface PostgresStoreOptions {
  maxConnections?: number;
  /** How long to wait for a connection (a free one from the pool, or a new one); 5 s by default. */
  connectionTimeoutMs?: number;
  /** How long one statement may run before it fails as an outage; 10 s by default. */
  queryTimeoutMs?: number;
  /**
   * Told when an idle connection fails (the server restarted, a failover, a terminated backend).
   * The pool drops that connection and opens a new one on the next query; without a listener, pg
   * would raise the error on the process and end it.
   */
  onIdleConnectionError?: (error: Error) => void;
}

export async function openPostgresStore(connectionString: string, options: PostgresStoreOptions = {}): Promise<WebhookStore> {
  const driver = createPostgresDriver(connectionString, {
    maxConnections: options.maxConnections ?? 10,
    connectionTimeoutMs: options.connectionTimeoutMs ?? 5_000,
    queryTimeoutMs: options.queryTimeoutMs ?? 10_000,
    onIdleConnectionError: options.onIdleConnectionError,
  });
  try {
    await runMigrations(driver, postgresMigrations);
  } catch (error) {
    await driver.close();
    throw error;
  }
  return createSqlWebhookStore(driver);
}
