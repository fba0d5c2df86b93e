// Which batches to form now, the same in both dialects and pure: for each (configuration, gateway,
// measurement) group of waiting Batch points, a batch for every full run of `maxPoints`, and one for
// what is left once its oldest point has waited `lingerMs`; and when the next group falls due.
import { randomUUID } from 'node:crypto';
import type { SqlDialect, SqlQueryable, SqlRow } from '../store/sql-driver.ts';
import { messageIdOf, type BatchRules } from './delivery-queue.ts';

/** The k-th batch of a group: its points are the k-th run of maxPoints of the group's waiting points, in order. */
export interface PlannedBatch {
  readonly id: string;
  readonly cfg: string;
  readonly g: string;
  readonly m: string;
  readonly k: number;
}

export interface BatchPlan {
  readonly batches: PlannedBatch[];
  /** When the next group that formed nothing now reaches its linger (epoch ms). */
  readonly nextAt: number | undefined;
}

export const batchInput = { id: 'text', cfg: 'text', g: 'text', m: 'text', k: 'bigint' } as const;

/** The groups of waiting points: `cfg`, `g`, `m`, how many (`n`) and the oldest's acceptance (`oldest`). */
export const waitingGroups = (q: SqlQueryable) =>
  q.all(
    `SELECT webhook_config_id AS cfg, gateway_id AS g, measurement AS m, COUNT(*) AS n, MIN(accepted_at) AS oldest
     FROM delivery_points WHERE delivery_id IS NULL GROUP BY webhook_config_id, gateway_id, measurement`,
  );

export function planBatches(groups: readonly SqlRow[], { maxPoints, lingerMs, now }: BatchRules, newId: () => string = randomUUID): BatchPlan {
  const batches: PlannedBatch[] = [];
  let nextAt: number | undefined;
  for (const group of groups) {
    const lingered = Number(group.oldest) + lingerMs <= now;
    const count = lingered ? Math.ceil(Number(group.n) / maxPoints) : Math.floor(Number(group.n) / maxPoints);
    if (count === 0) nextAt = Math.min(nextAt ?? Infinity, Number(group.oldest) + lingerMs);
    for (let k = 0; k < count; k++) batches.push({ id: newId(), cfg: String(group.cfg), g: String(group.g), m: String(group.m), k });
  }
  return { batches, nextAt };
}

/** Inserts the planned batches as queued deliveries, due now. */
export async function insertBatches(tx: SqlQueryable, { jsonRows }: SqlDialect, batches: readonly PlannedBatch[], now: number): Promise<void> {
  await tx.run(
    `INSERT INTO deliveries (id, webhook_id, webhook_config_id, mode, gateway_id, measurement, state, attempts, next_attempt_at, accepted_at, created_at)
     SELECT b.id, ${messageIdOf('b.id')}, b.cfg, 'Batch', b.g, b.m, 'queued', 0, $2, $2, $2 FROM ${jsonRows('$1', 'b', batchInput)}`,
    [JSON.stringify(batches), now],
  );
}

/**
 * Once the points are assigned: removes a batch left with none (its points were taken by another
 * deliverer's batch), and dates each one by its oldest point; how many batches were formed.
 */
export async function finishBatches(tx: SqlQueryable, { idIn }: SqlDialect, batches: readonly PlannedBatch[]): Promise<number> {
  const ids = JSON.stringify(batches.map(({ id }) => ({ id })));
  const empty = await tx.run(
    `DELETE FROM deliveries WHERE ${idIn('id', '$1')} AND NOT EXISTS (SELECT 1 FROM delivery_points p WHERE p.delivery_id = deliveries.id)`,
    [ids],
  );
  await tx.run(
    `UPDATE deliveries SET accepted_at = (SELECT MIN(p.accepted_at) FROM delivery_points p WHERE p.delivery_id = deliveries.id) WHERE ${idIn('id', '$1')}`,
    [ids],
  );
  return batches.length - empty;
}
