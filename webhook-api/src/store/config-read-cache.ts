// Configuration reads answered from memory while nothing can have changed the configuration: what
// every /v2/webhooks/{id} call begins with (a cached GET spent a fifth of its time reading the row).
// A read is as fresh as a query: before it is answered, the database is asked whether any other
// connection (a thread, another process, an operator's shell) committed since the cache was filled,
// and the cache is cleared if so; this store's own writes drop the configuration before they start
// and again once they have committed, and a read that raced a write keeps nothing. Only where the
// database can say so without a query of the row (SQLite's PRAGMA data_version): PostgreSQL reads
// the row.
//
// The question is asked once per turn of the event loop for all the reads waiting on it, not once
// per read: in place the PRAGMA (a read transaction, two file locks) took 10-20 µs, a fifth of a
// cached GET under 16 connections. A read waits for the version read in the next check phase
// (setImmediate), which every read asked for meanwhile shares. So the version is always read after
// the read was asked for, hence after its request's bytes were taken in: a commit the client could
// have known of when it sent the request (one that ended before that) is seen, and reads stay
// linearizable. A version read as one request is handled could not serve the next one read in the
// same poll phase: that request may have been sent after a commit that followed the version's read.
// Under load the answers of a turn are then written together in its check phase, not each as its
// request is read, which the benchmark also found cheaper (docs/operations.md, Benchmarks).
import type { StoredConfig } from './records.ts';
import type { WebhookStore } from './webhook-store.ts';

export interface ConfigReadCacheOptions {
  /** A number that changes whenever another connection commits (SQLite's PRAGMA data_version); read once per event-loop turn with reads waiting. */
  readonly changesElsewhere: () => number;
  /** Configurations kept; the oldest goes first. Default 10 000. */
  readonly maxEntries?: number;
}

const frozen = (config: StoredConfig): StoredConfig => Object.freeze({ ...config, signingSecrets: Object.freeze({ ...config.signingSecrets }) });

/** A store whose configuration reads may be answered from memory. */
export interface CachedWebhookStore extends WebhookStore {
  /**
   * Drops configuration `id` from memory: for a change this store cannot see, made through its own
   * connection by something other than the store (the deliverer disabling an endpoint).
   */
  forget(id: string): void;
}

/** `store` with getConfig answered from memory while neither this store nor another connection changed the database. */
export function cachingConfigReads(store: WebhookStore, options: ConfigReadCacheOptions): CachedWebhookStore {
  const { changesElsewhere, maxEntries = 10_000 } = options;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError('cachingConfigReads: maxEntries must be a positive whole number');
  const kept = new Map<string, StoredConfig>();
  let seenVersion = changesElsewhere();
  /** Moved on by every change this store makes or sees: a read begun before one keeps nothing. */
  let generation = 0;
  /** The check the reads asked for so far wait on; gone once it has read the version (later reads need a later one). */
  let nextCheck: Promise<void> | undefined;

  const checkVersion = () => {
    const version = changesElsewhere();
    if (version !== seenVersion) {
      seenVersion = version;
      generation += 1;
      kept.clear();
    }
  };
  /** Settles after a version read begun after this call: in this turn's check phase, shared by every read asked for meanwhile. */
  const versionChecked = (): Promise<void> =>
    (nextCheck ??= new Promise<void>((resolve) => {
      setImmediate(resolve);
    }).then(() => {
      nextCheck = undefined;
      checkVersion();
    }));

  const forget = (id: string) => {
    generation += 1;
    kept.delete(id);
  };
  /** Runs a write of configuration `id`, dropping it before (reads meanwhile go to the database) and after (reads that raced it keep nothing). */
  const writing = async <T>(id: string, write: () => Promise<T>): Promise<T> => {
    forget(id);
    try {
      return await write();
    } finally {
      forget(id);
    }
  };

  return {
    ...store,
    forget,
    async getConfig(id) {
      await versionChecked();
      const hit = kept.get(id);
      if (hit) return hit;
      const readAt = generation;
      const config = await store.getConfig(id);
      if (!config || generation !== readAt) return config;
      const keep = frozen(config);
      if (kept.size >= maxEntries) kept.delete(kept.keys().next().value as string);
      kept.set(id, keep);
      return keep;
    },
    updateConfig: (id, change) => writing(id, () => store.updateConfig(id, change)),
    rotateSigningSecret: (id, rotate) => writing(id, () => store.rotateSigningSecret(id, rotate)),
    deleteConfig: (id, now, check) => writing(id, () => store.deleteConfig(id, now, check)),
  };
}
