// The embedded store: one SQLite file (node:sqlite) in WAL mode with foreign keys on, readable by
// its owner only. Creation order is SQLite's rowid.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { companyConfigCountsMigration } from './company-config-counts.ts';
import { sqliteDeliveryMigration } from './delivery-schema.ts';
import { runMigrations } from './run-migrations.ts';
import { createSqlWebhookStore } from './sql-webhook-store.ts';
import { startCheckpointer } from './sqlite-checkpointer.ts';
import { createSqliteDriver } from './sqlite-driver.ts';
import type { WebhookStore } from './webhook-store.ts';

export const sqliteMigrations: readonly string[] = [
  `CREATE TABLE webhook_configs (
     id TEXT PRIMARY KEY,
     company_id INTEGER NOT NULL,
     name TEXT NOT NULL,
     url TEXT NOT NULL,
     method TEXT NOT NULL,
     delivery_mode TEXT NOT NULL,
     auth_type TEXT NOT NULL,
     auth_payload_encrypted TEXT,
     custom_headers TEXT,
     include_metadata_headers INTEGER NOT NULL,
     include_retry_header INTEGER NOT NULL,
     created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
     updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
   );
   CREATE INDEX webhook_configs_company ON webhook_configs (company_id, created_at, id);
   CREATE TABLE device_links (
     webhook_config_id TEXT NOT NULL REFERENCES webhook_configs (id) ON DELETE CASCADE,
     device_id INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     PRIMARY KEY (webhook_config_id, device_id)
   );
   CREATE INDEX device_links_device ON device_links (device_id);
   CREATE TABLE scopes (
     id TEXT PRIMARY KEY,
     webhook_config_id TEXT NOT NULL,
     device_id INTEGER NOT NULL,
     scope_level TEXT NOT NULL,
     connection_tag TEXT,
     measurement TEXT,
     enabled INTEGER NOT NULL,
     created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
     FOREIGN KEY (webhook_config_id, device_id) REFERENCES device_links (webhook_config_id, device_id) ON DELETE CASCADE
   );
   CREATE UNIQUE INDEX scopes_identical ON scopes (webhook_config_id, device_id, scope_level, COALESCE(connection_tag, ''), COALESCE(measurement, ''));`,
  // Pages follow the rowid; an index on the parent alone ends in the rowid, so it serves them in order.
  `DROP INDEX webhook_configs_company;
   CREATE INDEX webhook_configs_company ON webhook_configs (company_id);
   CREATE INDEX device_links_config ON device_links (webhook_config_id);
   CREATE INDEX scopes_link ON scopes (webhook_config_id, device_id);`,
  companyConfigCountsMigration,
  sqliteDeliveryMigration,
];

/** How often the write-ahead log is checkpointed from a worker thread. */
const checkpointEveryMs = 250;
/** Pages in the log past which the committing connection checkpoints itself after all. */
const walBackstopPages = 10_000;

export interface SqliteStoreOptions {
  /** How long a statement waits for another process's lock before the store is unavailable. */
  readonly busyTimeoutMs?: number;
}

/** Creates the file (and its folder) for the owner only; an existing one is set back to 0600. */
function ownerOnly(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file)) chmodSync(file, 0o600);
  }
}

/** Opens the store once its migrations are applied; a migration that fails rejects, so start-up can say why. */
export async function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Promise<WebhookStore> {
  if (path !== ':memory:') ownerOnly(path);
  const db = new DatabaseSync(path);
  db.exec(
    `PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5_000)}; PRAGMA synchronous = NORMAL;`,
  );
  const driver = createSqliteDriver(db);
  await runMigrations(driver, sqliteMigrations);
  if (path === ':memory:') return createSqlWebhookStore(driver);
  // The log is checkpointed off the event loop; the writer's own checkpoint is left as a backstop,
  // ten times further off than SQLite's default, for a worker that cannot keep up.
  db.exec(`PRAGMA wal_autocheckpoint = ${walBackstopPages}`);
  const checkpointer = startCheckpointer(path, checkpointEveryMs);
  const store = createSqlWebhookStore(driver);
  return {
    ...store,
    async close() {
      await checkpointer.stop();
      await store.close();
    },
  };
}
