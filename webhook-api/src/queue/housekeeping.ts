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
    const [queued, gathering] = await Promise.all([
      driver.one(`SELECT COUNT(*) AS n, MIN(accepted_at) AS oldest FROM deliveries WHERE state = 'queued'`),
      driver.one(`SELECT COUNT(*) AS n, MIN(accepted_at) AS oldest FROM delivery_points WHERE delivery_id IS NULL`),
    ]);
    const oldest = [numberOrUndefined(queued?.oldest), numberOrUndefined(gathering?.oldest)].filter((at) => at !== undefined);
    return {
      queued: Number(queued?.n ?? 0),
      gathering: Number(gathering?.n ?? 0),
      oldestAcceptedAt: oldest.length > 0 ? Math.min(...oldest) : undefined,
    };
  };
