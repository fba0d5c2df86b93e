// The shared store: PostgreSQL (pg), so any number of webhook-api and deliverer processes can use
// one database. Creation order is a sequence column, never a timestamp.
import { applySchema } from '../apply-schema.ts';
import type { SqlDriver } from '../sql-driver.ts';
import { postgresLogReadAhead, type LogReadAhead } from '../log-read-ahead.ts';
import { createSqlWebhookStore } from '../sql-webhook-store.ts';
import type { WebhookStore } from '../webhook-store.ts';
import { insertCountedInOneStatement } from './insert-counted-config.ts';
import { createPostgresDriver, type PostgresDriver } from './postgres-driver.ts';
import { postgresSchema } from './postgres-schema.ts';
import { traceContextColumn } from '../trace-context-schema.ts';
import { endpointHealthColumns } from '../endpoint-health-schema.ts';
import { testDeliveriesPostgres } from '../test-deliveries-schema.ts';
import { ingestKeysTable } from '../ingest-keys-schema.ts';
import { resendIndex } from '../recovery-schema.ts';
import { rateLimitPostgres } from '../rate-limit-schema.ts';
import { orderingPostgres } from '../ordering-schema.ts';
import { openBatchesPostgres } from '../open-batches-schema.ts';
import { deletedConfigsSchema } from '../deleted-configs-schema.ts';
import { endpointLogPostgres } from '../endpoint-log-schema.ts';
import { queueStorageTuning } from './queue-storage-schema.ts';

/** The schema's versions: the whole of it, then what changes it later. */
const schemaVersions = [
  postgresSchema,
  traceContextColumn,
  openBatchesPostgres,
  queueStorageTuning,
  endpointHealthColumns,
  testDeliveriesPostgres,
  ingestKeysTable,
  resendIndex,
  rateLimitPostgres,
  orderingPostgres,
  deletedConfigsSchema,
  endpointLogPostgres,
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

/** Connects once the schema is applied; a failure closes the pool and rejects, so start-up can say why. */
export async function openPostgresDriver(connectionString: string, options: PostgresStoreOptions = {}): Promise<PostgresDriver> {
  const driver = createPostgresDriver(connectionString, {
    maxConnections: options.maxConnections ?? 10,
    connectionTimeoutMs: options.connectionTimeoutMs ?? 5_000,
    queryTimeoutMs: options.queryTimeoutMs ?? 10_000,
    onIdleConnectionError: options.onIdleConnectionError,
  });
  try {
    await applySchema(driver, schemaVersions);
  } catch (error) {
    await driver.close();
    throw error;
  }
  return driver;
}

/** The configuration store on PostgreSQL. */
export const createPostgresWebhookStore = (driver: SqlDriver, readAhead: LogReadAhead = postgresLogReadAhead): WebhookStore =>
  createSqlWebhookStore(driver, insertCountedInOneStatement, readAhead);

/** The configuration store alone (the store's tests). */
export const openPostgresStore = async (connectionString: string, options: PostgresStoreOptions = {}): Promise<WebhookStore> =>
  createPostgresWebhookStore(await openPostgresDriver(connectionString, options));
