// A resend: a dropped or failed delivery queued again as a new delivery (resend_of names the old,
// and the webhook-id is the old one's), with its points of devices still linked. Refused while it or a resend of it is queued, when it was
// delivered, and when none of its devices is linked any more.
import { newDeliveryId } from './delivery-ids.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import type { QueueDependencies } from './queue-dependencies.ts';

export const resend =
  ({ driver, signal, tellOthers }: QueueDependencies): DeliveryQueue['resend'] =>
  async (configId, deliveryId, now) => {
    const result = await driver.transaction(async (tx) => {
      // Locked where transactions run side by side: a concurrent resend of the same delivery waits, then finds this one's.
      const old = await tx.one(
        `SELECT state, webhook_id, mode, gateway_id, measurement, test FROM deliveries WHERE id = $1 AND webhook_config_id = $2${driver.dialect.forUpdate}`,
        [deliveryId, configId],
      );
      if (!old) return 'not-found' as const;
      if (old.test === true || old.test === 1) return 'test' as const;
      if (old.state === 'queued' || old.state === 'held' || old.state === 'logged') return 'not-settled' as const;
      if (old.state === 'delivered') return 'delivered' as const;
      if (await tx.one(`SELECT id FROM deliveries WHERE resend_of = $1 AND state = 'queued'`, [deliveryId])) return 'resend-queued' as const;
      const id = newDeliveryId();
      await tx.run(
        `INSERT INTO deliveries (id, webhook_id, webhook_config_id, mode, gateway_id, measurement, state, attempts, next_attempt_at, accepted_at, created_at, resend_of)
         VALUES ($1, $2, $3, $4, $5, $6, 'queued', 0, $7, $7, $7, $8)`,
        // The same message to the receiver: a resend keeps the webhook-id of what it sends again.
        [id, String(old.webhook_id), configId, String(old.mode), String(old.gateway_id), String(old.measurement), now, deliveryId],
      );
      // An unlink took the device's points with it: only points of devices still linked are there to copy.
      const copied = await tx.run(
        `INSERT INTO delivery_points (delivery_id, webhook_config_id, device_id, gateway_id, measurement, point, accepted_at)
         SELECT $1, webhook_config_id, device_id, gateway_id, measurement, point, $2 FROM delivery_points WHERE delivery_id = $3 ORDER BY seq`,
        [id, now, deliveryId],
      );
      if (copied === 0) {
        await tx.run('DELETE FROM deliveries WHERE id = $1', [id]);
        return 'unlinked' as const;
      }
      await tellOthers(tx);
      return { resent: id };
    });
    if (typeof result === 'object') signal.announce();
    return result;
  };
