// SQLite's open batches at ingest: looked up a group at a time by the unique index of open batches;
// the ingest's transaction holds the database's write lock (one writer), so nothing else joins or
// claims them until it commits.
import { groupKey, openBatchOf, type OpenBatch } from '../batch-fill.ts';
import type { OpenBatchLock } from '../routing.ts';

export const lockOpenBatches: OpenBatchLock = async (tx, groups) => {
  const found = new Map<string, OpenBatch>();
  for (const { cfg, g, m } of groups) {
    const row = await tx.one(
      `SELECT id, point_count, trace_context FROM deliveries WHERE batch_open = 1 AND webhook_config_id = $1 AND gateway_id = $2 AND measurement = $3`,
      [cfg, g, m],
    );
    if (row) found.set(groupKey(cfg, g, m), openBatchOf(row));
  }
  return found;
};
