// SQLite's batch forming: the plan's batches inserted, then each one's points assigned by a prepared
// statement a batch (in process, cheaper than joining the plan's JSON to every point); one writer,
// so no point can be taken twice.
import type { DeliveryQueue } from '../delivery-queue.ts';
import { finishBatches, insertBatches, planBatches, waitingGroups } from '../batch-plan.ts';
import type { QueueDependencies } from '../queue-dependencies.ts';

export const formBatches =
  ({ driver, signal }: QueueDependencies): DeliveryQueue['formBatches'] =>
  async (rules) => {
    const { batches, nextAt } = planBatches(await waitingGroups(driver), rules);
    if (batches.length === 0) return { formed: 0, nextAt };
    const formed = await driver.transaction(async (tx) => {
      await insertBatches(tx, driver.dialect, batches, rules.now);
      for (const b of batches) {
        await tx.run(
          `UPDATE delivery_points SET delivery_id = $1 WHERE seq IN (
             SELECT seq FROM delivery_points WHERE delivery_id IS NULL AND webhook_config_id = $2 AND gateway_id = $3 AND measurement = $4
             ORDER BY seq LIMIT $5)`,
          [b.id, b.cfg, b.g, b.m, rules.maxPoints],
        );
      }
      return finishBatches(tx, driver.dialect, batches);
    });
    if (formed > 0) signal.announce();
    return { formed, nextAt };
  };
