// The database a process of the webhook service works on, from its settings: PostgreSQL when
// DATABASE_URL is set, else the SQLite file under the data folder; the configuration store and the
// delivery queue on one connection (pool) of it. And the key ring: the configured one, or the local
// key file, which must hold every key a stored credential names. Shared by the API and a deliverer
// alone, which must open the same ones.
import { join } from 'node:path';
import type { Logger } from '@platform/tool-sdk';
import { CredentialVault, type EncryptionKey } from './configs/credential-vault.ts';
import { loadEncryptionKeys, localKeyFile, localKeyId } from './configs/encryption-keys.ts';
import { requireStoredKeysInRing } from './configs/key-ring-coverage.ts';
import type { DeliveryQueue } from './queue/delivery-queue.ts';
import { createPostgresDeliveryQueue } from './queue/postgres/postgres-delivery-queue.ts';
import { delivererConnections, delivererConnectionString } from './queue/postgres/deliverer-connection.ts';
import { offLoopQueue } from './queue/sqlite/off-loop-queue.ts';
import { createSqliteDeliveryQueue } from './queue/sqlite/sqlite-delivery-queue.ts';
import { createWorkSignal } from './queue/work-signal.ts';
import type { BatchRules } from './queue/batch-fill.ts';
import type { HealthRules } from './queue/endpoint-health.ts';
import type { DeliverySettings } from './delivery/delivery-settings.ts';
import { createPostgresWebhookStore, openPostgresDriver, type PostgresStoreOptions } from './store/postgres/open-postgres.ts';
import { postgresLogReadAhead, type LogReadAhead } from './store/log-read-ahead.ts';
import { createSqliteWebhookStore, openSqliteDriver, type SqliteStoreOptions } from './store/sqlite/open-sqlite.ts';
import type { WebhookStore } from './store/webhook-store.ts';
import { tracedDriver } from './store/traced-driver.ts';

/** The configuration store, with the delivery queue in the same database; closing it closes both. */
export interface WebhookDatabase extends WebhookStore {
  readonly deliveries: DeliveryQueue;
}

export interface StoreSettings {
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly encryptionKeys: readonly EncryptionKey[] | undefined;
  /** How ingest makes batches (the process that ingests applies them). */
  readonly delivery: Pick<DeliverySettings, 'batchMaxPoints' | 'batchLingerMs' | 'disableAfterMs' | 'disableMinAttempts'>;
}

/** What a database is opened with besides the dialect's own options. */
interface QueueOptions {
  /** How ingest makes batches; the settings' defaults when not given. */
  readonly batch?: BatchRules;
  /** When the deliverers' settlements disable an endpoint; the settings' defaults when not given. */
  readonly health?: HealthRules;
}

interface PostgresReadAhead {
  /**
   * How far deliverers read endpoint logs ahead, and so how long a change waits for what they read
   * before it (log-read-ahead.ts): postgresLogReadAhead unless given (tests widen the window).
   */
  readonly logReadAhead?: LogReadAhead;
}

interface SqliteQueueThread {
  /**
   * Default false. True runs the deliverer's side of the queue in a worker thread on a connection of
   * its own (off-loop-queue.ts; the delivery bench compares the two in every run, see there).
   */
  readonly queueThread?: boolean;
}

/**
 * The database in the SQLite file at `path`, the store and the queue on one connection, whose
 * statements take turns: one writer, so ingest and the deliverer never wait on each other's locks.
 */
export async function openSqliteDatabase(path: string, options: SqliteStoreOptions & QueueOptions & SqliteQueueThread = {}): Promise<WebhookDatabase> {
  const untraced = await openSqliteDriver(path, options);
  const driver = tracedDriver(untraced, 'sqlite');
  const store = createSqliteWebhookStore(driver);
  const signal = createWorkSignal();
  const inLoop = createSqliteDeliveryQueue(driver, {
    signal,
    delivererDriver: untraced,
    ...(options.batch && { batch: options.batch }),
    ...(options.health && { health: options.health }),
  });
  // Configurations this connection's deliverer wrote (their health, a disabling): the cache cannot
  // tell, this connection's own writes not changing data_version.
  inLoop.onEndpointHealthWritten((configIds) => {
    for (const id of configIds) store.forget(id);
  });
  // An in-memory database has no file a thread's connection could open.
  if (path === ':memory:' || options.queueThread !== true) return { ...store, deliveries: inLoop };
  const deliveries = offLoopQueue(inLoop, path, options);
  return {
    ...store,
    deliveries,
    async close() {
      await deliveries.close();
      await store.close();
    },
  };
}

export async function openPostgresDatabase(
  connectionString: string,
  options: PostgresStoreOptions & QueueOptions & PostgresReadAhead = {},
): Promise<WebhookDatabase> {
  const driver = await openPostgresDriver(connectionString, options);
  const traced = tracedDriver(driver, 'postgresql');
  // The deliverer's statements on connections of their own (an API that runs no deliverer holds only its start-up check's, until it idles out).
  const delivererUrl = delivererConnectionString(connectionString);
  const delivererDriver = delivererUrl === undefined ? undefined : await openPostgresDriver(delivererUrl, { ...options, maxConnections: delivererConnections });
  // The store's changes wait out the window of the reads the queue lets deliverers make ahead: one rule on both sides.
  const logReadAhead = options.logReadAhead ?? postgresLogReadAhead;
  const store = createPostgresWebhookStore(traced, logReadAhead);
  // The queue's statements are spans too, as on SQLite (ingest, the attempt log, resend); LISTEN is the driver's own.
  const deliveries = createPostgresDeliveryQueue(
    { ...traced, listen: (channel, onNotify) => driver.listen(channel, onNotify) },
    {
      ...(options.batch && { batch: options.batch }),
      ...(options.health && { health: options.health }),
      ...(delivererDriver && { delivererDriver }),
      logReadAhead,
    },
  );
  return {
    ...store,
    deliveries,
    async close() {
      await delivererDriver?.close();
      await store.close();
    },
  };
}

export function openDatabase(settings: StoreSettings, logger: Logger): Promise<WebhookDatabase> {
  const batch = { maxPoints: settings.delivery.batchMaxPoints, lingerMs: settings.delivery.batchLingerMs };
  const health = { disableAfterMs: settings.delivery.disableAfterMs, minFailedAttempts: settings.delivery.disableMinAttempts };
  return settings.databaseUrl
    ? openPostgresDatabase(settings.databaseUrl, {
        batch,
        health,
        onIdleConnectionError: (error) => {
          logger.warn({ err: error }, 'an idle database connection failed; the pool replaces it');
        },
      })
    : openSqliteDatabase(join(settings.dataDir, 'webhooks.db'), { batch, health });
}

/**
 * The credential vault on the key ring; rejects with a one-line message naming each key id a stored
 * credential names that the ring lacks, so that no process starts that would drop its deliveries.
 */
export async function openVault(settings: StoreSettings, store: Pick<WebhookStore, 'encryptionKeyIdsInUse'>, logger: Logger): Promise<CredentialVault> {
  const vault = new CredentialVault(loadEncryptionKeys({ configured: settings.encryptionKeys, dataDir: settings.dataDir, logger }));
  await requireStoredKeysInRing(store, {
    keyIds: vault.keyIds,
    configured: settings.encryptionKeys !== undefined,
    localKeyFile: localKeyFile(settings.dataDir),
    localKeyId: localKeyId(settings.dataDir),
  });
  return vault;
}
