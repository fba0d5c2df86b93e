// The queue's size for the metrics and the pruning of settled deliveries past their retention: the
// same statements in both dialects.
import type { SqlDriver } from '../store/sql-driver.ts';
import type { DeliveryQueue } from './delivery-queue.ts';

const numberOrUndefined = (value: unknown) => (value === null || value === undefined ? undefined : Number(value));

export const prune =
  (driver: SqlDriver): DeliveryQueue['prune'] =>
  (before, limit) =>
    driver.run(`DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE state <> 'queued' AND settled_at < $1 LIMIT $2)`, [before, limit]);

export const stats =
  (driver: SqlDriver): DeliveryQueue['stats'] =>
  async () => {
    const row = await driver.one(
      `SELECT SUM(CASE WHEN batch_open THEN 0 ELSE 1 END) AS queued, SUM(CASE WHEN batch_open THEN point_count ELSE 0 END) AS gathering,
         MIN(accepted_at) AS oldest
       FROM deliveries WHERE state = 'queued'`,
    );
    return {
      queued: Number(row?.queued ?? 0),
      gathering: Number(row?.gathering ?? 0),
      oldestAcceptedAt: numberOrUndefined(row?.oldest),
    };
  };
