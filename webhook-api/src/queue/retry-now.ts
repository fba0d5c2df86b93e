// A delivery waiting for its retry, made due now: its schedule's wait cut short, its attempt count
// kept. One statement both dialects share; the deliverers are told as on any new work.
import type { DeliveryQueue } from './delivery-queue.ts';
import type { QueueDependencies } from './queue-dependencies.ts';
import { loggedInFlight } from './endpoint-logs.ts';

export const retryNow =
  ({ driver, signal, tellOthers }: QueueDependencies): DeliveryQueue['retryNow'] =>
  async (configId, deliveryId, now) => {
    const result = await driver.transaction(async (tx) => {
      // Not while a deliverer holds it (its lease unexpired): that attempt is under way.
      const due = await tx.one(
        `UPDATE deliveries SET next_attempt_at = $1
         WHERE id = $2 AND webhook_config_id = $3 AND state = 'queued' AND (lease_until IS NULL OR lease_until < $1)
         RETURNING id`,
        [now, deliveryId, configId],
      );
      if (due) {
        await tellOthers(tx);
        return { nextAttemptAt: now };
      }
      const found = await tx.one('SELECT state FROM deliveries WHERE id = $1 AND webhook_config_id = $2', [deliveryId, configId]);
      if (!found) return 'not-found' as const;
      if (found.state === 'held') return 'held' as const;
      // In its endpoint's log: due already, sent in the log's order (or being sent: its cursor's holder has read it).
      if (found.state === 'logged')
        return (await loggedInFlight(tx, driver.dialect.sequence, deliveryId, now)) ? ('in-flight' as const) : { nextAttemptAt: now };
      return found.state === 'queued' ? ('in-flight' as const) : ('settled' as const);
    });
    if (typeof result === 'object') signal.announce();
    return result;
  };
