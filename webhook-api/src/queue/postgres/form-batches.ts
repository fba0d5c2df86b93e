// PostgreSQL's batch forming: the plan's batches inserted, then in one statement the waiting points
// of those groups in order, the k-th run of maxPoints into the group's k-th batch; points another
// deliverer is taking are passed over (SKIP LOCKED), and a batch left with none is removed.
import type { DeliveryQueue } from '../delivery-queue.ts';
import { batchInput, finishBatches, insertBatches, planBatches, waitingGroups } from '../batch-plan.ts';
import type { QueueDependencies } from '../queue-dependencies.ts';

export const formBatches =
  ({ driver, signal, tellOthers }: QueueDependencies): DeliveryQueue['formBatches'] =>
  async (rules) => {
    const { batches, nextAt } = planBatches(await waitingGroups(driver), rules);
    if (batches.length === 0) return { formed: 0, nextAt };
    const planned = driver.dialect.jsonRows('$1', 'b', batchInput);
    const formed = await driver.transaction(async (tx) => {
      await insertBatches(tx, driver.dialect, batches, rules.now);
      await tx.run(
        `WITH waiting AS (
           SELECT p.seq, p.webhook_config_id, p.gateway_id, p.measurement FROM delivery_points p
           WHERE p.delivery_id IS NULL AND (p.webhook_config_id, p.gateway_id, p.measurement) IN (SELECT b.cfg, b.g, b.m FROM ${planned})
           FOR UPDATE OF p SKIP LOCKED
         ), numbered AS (
           SELECT seq, webhook_config_id AS cfg, gateway_id AS g, measurement AS m,
             (ROW_NUMBER() OVER (PARTITION BY webhook_config_id, gateway_id, measurement ORDER BY seq) - 1) / $2 AS k
           FROM waiting
         )
         UPDATE delivery_points SET delivery_id = b.id FROM numbered n JOIN ${planned} ON b.cfg = n.cfg AND b.g = n.g AND b.m = n.m AND b.k = n.k
         WHERE delivery_points.seq = n.seq`,
        [JSON.stringify(batches), rules.maxPoints],
      );
      const n = await finishBatches(tx, driver.dialect, batches);
      if (n > 0) await tellOthers(tx);
      return n;
    });
    if (formed > 0) signal.announce();
    return { formed, nextAt };
  };
