// Ordered delivery's streams, the same statements in both dialects (the lock is the dialect's): a
// PerDevice configuration's deliveries of one device (Realtime) or one gateway and measurement
// (Batch) form a stream, whose earliest delivery is 'queued' and the rest 'held'. Ingest, the
// settlement that ends a stream's head, and the repair of a stream left without one all take the
// stream's lock first (PostgreSQL: a transaction's advisory lock; SQLite: its one writer), so a
// stream never has two heads and never is left with none for long.
import type { SqlDialect, SqlQueryable } from '../store/sql-driver.ts';

/** A stream of a configuration. */
export interface StreamKey {
  readonly cfg: string;
  readonly stream: string;
}

/** The dialect's way to hold streams until the transaction ends, taken in one order. */
export type StreamLock = (tx: SqlQueryable, streams: readonly StreamKey[]) => Promise<void>;

/** The stream of a Realtime delivery: its device. */
export const deviceStream = (deviceId: number) => `device ${deviceId}`;
/** The stream of a Batch delivery: its gateway and measurement (the configuration's batch stream). */
export const batchStream = (gatewayId: string, measurement: string) => `batch ${JSON.stringify([gatewayId, measurement])}`;

/**
 * An endpoint's log (endpoint-logs.ts), locked as a stream: ingests of one endpoint take turns on it,
 * so its log positions commit in order, and a cursor given back judges its log while none is writing.
 */
export const logStream = 'log';

/** The key streams are locked and compared by. */
export const streamKey = ({ cfg, stream }: StreamKey) => JSON.stringify([cfg, stream]);

const streamInput = { cfg: 'text', s: 'text' } as const;

/**
 * The predicate of the stream index (deliveries_stream), word for word: SQLite uses a partial index
 * only for a query whose WHERE holds its terms (it does not see that state = 'held' implies them),
 * and would otherwise read the whole queue in creation order to find a stream's next delivery.
 */
const inStream = (alias: string) => `${alias}.stream IS NOT NULL AND ${alias}.state IN ('queued', 'held')`;

/** Which of `streams` have a delivery queued or held: a new delivery of one of those waits its turn. */
export async function busyStreams(tx: SqlQueryable, jsonRows: SqlDialect['jsonRows'], streams: readonly StreamKey[]): Promise<Set<string>> {
  if (streams.length === 0) return new Set();
  const rows = await tx.all(
    `SELECT DISTINCT d.webhook_config_id AS cfg, d.stream AS s FROM ${jsonRows('$1', 'x', streamInput)}
     JOIN deliveries d ON d.webhook_config_id = x.cfg AND d.stream = x.s AND ${inStream('d')}`,
    [JSON.stringify(streams.map(({ cfg, stream }) => ({ cfg, s: stream })))],
  );
  return new Set(rows.map((row) => streamKey({ cfg: String(row.cfg), stream: String(row.s) })));
}

/**
 * Makes the earliest held delivery of each stream its head, where the stream has none queued: after
 * its head was delivered, dropped or failed (a settlement), or went (an unlink, an expiry). The
 * caller holds the streams' locks. How many were released.
 */
export async function releaseStreams(tx: SqlQueryable, sequence: string, streams: readonly StreamKey[]): Promise<number> {
  let released = 0;
  for (const { cfg, stream } of streams) {
    released += await tx.run(
      `UPDATE deliveries SET state = 'queued'
       WHERE id = (SELECT h.id FROM deliveries h WHERE h.webhook_config_id = $1 AND h.stream = $2 AND ${inStream('h')} AND h.state = 'held' ORDER BY h.${sequence} LIMIT 1)
         AND NOT EXISTS (SELECT 1 FROM deliveries q WHERE q.webhook_config_id = $1 AND q.stream = $2 AND ${inStream('q')} AND q.state = 'queued')`,
      [cfg, stream],
    );
  }
  return released;
}

/** Streams with held deliveries and none queued: what a release missed (the repair's work). */
export async function headlessStreams(db: SqlQueryable, limit: number): Promise<StreamKey[]> {
  const rows = await db.all(
    `SELECT DISTINCT h.webhook_config_id AS cfg, h.stream AS s FROM deliveries h
     WHERE ${inStream('h')} AND h.state = 'held'
       AND NOT EXISTS (SELECT 1 FROM deliveries q WHERE q.webhook_config_id = h.webhook_config_id AND q.stream = h.stream AND ${inStream('q')} AND q.state = 'queued')
     LIMIT $1`,
    [limit],
  );
  return rows.map((row) => ({ cfg: String(row.cfg), stream: String(row.s) }));
}

/** Each distinct stream once, in one order (the order their locks are taken in). */
export function distinctStreams(streams: readonly StreamKey[]): StreamKey[] {
  const byKey = new Map(streams.map((s) => [streamKey(s), s]));
  return [...byKey.keys()].sort().map((key) => byKey.get(key) as StreamKey);
}

/** The streams whose head these settlements ended (delivered, dropped or failed): their next deliveries may go. */
export function endedStreams(
  settlements: readonly { id: string; outcome: string; stream?: string | null | undefined; endpoint?: { configId: string } | undefined }[],
  settled: ReadonlySet<string>,
): StreamKey[] {
  const ended: StreamKey[] = [];
  for (const s of settlements) {
    if (s.outcome === 'retrying' || !s.stream || !s.endpoint || !settled.has(s.id)) continue;
    ended.push({ cfg: s.endpoint.configId, stream: s.stream });
  }
  return distinctStreams(ended);
}
