// The embedded store: one SQLite file (node:sqlite) in WAL mode with foreign keys on, readable by
// its owner only. Creation order is SQLite's rowid.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { applySchema } from '../apply-schema.ts';
import { cachingConfigReads, type CachedWebhookStore } from '../config-read-cache.ts';
import { insertCountedInTransaction } from '../config-counts.ts';
import type { SqlDriver } from '../sql-driver.ts';
import { createSqlWebhookStore } from '../sql-webhook-store.ts';
import type { WebhookStore } from '../webhook-store.ts';
import { startCheckpointer } from './sqlite-checkpointer.ts';
import { createSqliteDriver } from './sqlite-driver.ts';
import { sqliteSchema } from './sqlite-schema.ts';
import { traceContextColumn } from '../trace-context-schema.ts';
import { endpointHealthColumns } from '../endpoint-health-schema.ts';
import { testDeliveriesSqlite } from '../test-deliveries-schema.ts';
import { ingestKeysTable } from '../ingest-keys-schema.ts';
import { resendIndex } from '../recovery-schema.ts';
import { rateLimitSqlite } from '../rate-limit-schema.ts';
import { orderingSqlite } from '../ordering-schema.ts';
import { openBatchesSqlite } from '../open-batches-schema.ts';
import { deletedConfigsSchema } from '../deleted-configs-schema.ts';
import { endpointLogSqlite } from '../endpoint-log-schema.ts';

/** The schema's versions: the whole of it, then what changes it later. */
const schemaVersions = [
  sqliteSchema,
  traceContextColumn,
  openBatchesSqlite,
  endpointHealthColumns,
  testDeliveriesSqlite,
  ingestKeysTable,
  resendIndex,
  rateLimitSqlite,
  orderingSqlite,
  deletedConfigsSchema,
  endpointLogSqlite,
];

/** How often the write-ahead log is checkpointed from a worker thread. */
const checkpointEveryMs = 250;

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

/**
 * A connection to the database at `path` as every connection of the service is set: write-ahead
 * log, foreign keys, the busy timeout, synchronous NORMAL (a commit is durable once the log is
 * synced at its checkpoint; nothing committed is lost when the process dies).
 */
export function openSqliteConnection(path: string, options: SqliteStoreOptions = {}): DatabaseSync {
  const db = new DatabaseSync(path);
  db.exec(
    `PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5_000)}; PRAGMA synchronous = NORMAL;`,
  );
  return db;
}

/** The write-ahead log's size at which a committing connection checkpoints it itself (a backstop for the checkpointer). */
export const walBackstopPages = 10_000;

/**
 * Opens the database once its schema is applied (a failure rejects, so start-up can say why); the
 * driver's close also stops the checkpointer.
 */
export async function openSqliteDriver(path: string, options: SqliteStoreOptions = {}): Promise<SqlDriver> {
  if (path !== ':memory:') ownerOnly(path);
  const db = openSqliteConnection(path, options);
  const driver = createSqliteDriver(db);
  await applySchema(driver, schemaVersions);
  if (path === ':memory:') return driver;
  // The log is checkpointed off the event loop; the writer's own checkpoint is left as a backstop,
  // ten times further off than SQLite's default, for a worker that cannot keep up.
  db.exec(`PRAGMA wal_autocheckpoint = ${walBackstopPages}`);
  const checkpointer = startCheckpointer(path, checkpointEveryMs);
  const close = driver.close.bind(driver);
  return Object.assign(driver, {
    async close() {
      await checkpointer.stop();
      await close();
    },
  });
}

/** The configuration store in its own SQLite file, its configuration reads cached while the file says nothing changed. */
export function createSqliteWebhookStore(driver: SqlDriver): CachedWebhookStore {
  const store = createSqlWebhookStore(driver, insertCountedInTransaction);
  const changesElsewhere = driver.dataVersion?.bind(driver);
  return changesElsewhere ? cachingConfigReads(store, { changesElsewhere }) : { ...store, forget: () => undefined };
}

/** The configuration store alone, on a file of its own (the store's tests). */
export const openSqliteStore = async (path: string, options: SqliteStoreOptions = {}): Promise<WebhookStore> =>
  createSqliteWebhookStore(await openSqliteDriver(path, options));
