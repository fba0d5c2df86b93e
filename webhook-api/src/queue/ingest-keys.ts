// Idempotent ingest: the Idempotency-Key of an ingest request, claimed in the ingest's own
// transaction. The first request with a key inserts its row and, once its points are queued, the
// answer it gets; a request with the same key and the same points within the window gets that
// answer again and queues nothing; with other points it is refused. Concurrent requests with one
// key wait on its row (PostgreSQL's unique index; SQLite's one writer), so one queues and the others
// read its committed answer; a request whose transaction fails leaves no row behind.
import type { SqlQueryable } from '../store/sql-driver.ts';
import type { IdempotencyKey } from './delivery-queue.ts';

/** How long a key's answer is kept: a device gateway retrying after a timeout does so within a day. */
export const idempotencyWindowMs = 24 * 3_600_000;

/** The first answer to the key, given again. */
export interface Replayed {
  readonly accepted: number;
  readonly queued: number;
}

/**
 * Takes `key` for this request (its row inserted, or an expired one taken over), or says what an
 * earlier request with it was answered, or that it came with other points.
 */
export async function claimIngestKey(tx: SqlQueryable, key: IdempotencyKey, accepted: number, now: number): Promise<'ours' | Replayed | 'key-conflict'> {
  // queued -1 until the answer is known, in the same transaction: no one reads it before then.
  const taken = await tx.one(
    `INSERT INTO ingest_keys (caller, key, body_hash, created_at, accepted, queued) VALUES ($1, $2, $3, $4, $5, -1)
     ON CONFLICT (caller, key) DO UPDATE SET body_hash = $3, created_at = $4, accepted = $5, queued = -1 WHERE ingest_keys.created_at <= $6
     RETURNING caller`,
    [key.caller, key.key, key.bodyHash, now, accepted, now - idempotencyWindowMs],
  );
  if (taken) return 'ours';
  const earlier = await tx.one('SELECT body_hash, accepted, queued FROM ingest_keys WHERE caller = $1 AND key = $2', [key.caller, key.key]);
  if (!earlier) throw new Error('an idempotency key neither inserted nor found');
  if (earlier.body_hash !== key.bodyHash) return 'key-conflict';
  return { accepted: Number(earlier.accepted), queued: Number(earlier.queued) };
}

/** Records the answer of the request that holds `key`. */
export async function answerIngestKey(tx: SqlQueryable, key: IdempotencyKey, queued: number): Promise<void> {
  await tx.run('UPDATE ingest_keys SET queued = $3 WHERE caller = $1 AND key = $2', [key.caller, key.key, queued]);
}

/** Deletes keys older than the window before `now`, at most `limit`; how many. */
export const pruneIngestKeys = (db: SqlQueryable, now: number, limit: number): Promise<number> =>
  db.run(`DELETE FROM ingest_keys WHERE (caller, key) IN (SELECT caller, key FROM ingest_keys WHERE created_at <= $1 LIMIT $2)`, [
    now - idempotencyWindowMs,
    limit,
  ]);
