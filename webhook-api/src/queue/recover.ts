// Bulk recovery: every failed or dropped delivery of a configuration settled since a time is queued
// again, each as a new delivery with its points of devices still linked and its webhook-id (as a
// resend is), at most `limit` a call, oldest first. A delivery already sent again (by a resend or an
// earlier recovery, pending or not) is not: a second recovery does not queue twice what the first
// did, and a recovered delivery that failed again is recovered in its turn. Recoveries of one
// configuration take turns (a transaction lock), and a delivery a resend took meanwhile is left out.
import { newDeliveryId } from './delivery-ids.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import type { QueueDependencies } from './queue-dependencies.ts';

const recoveredInput = { id: 'text', old: 'text', w: 'text', mode: 'text', g: 'text', m: 'text', i: 'bigint' } as const;

export const recover =
  ({ driver, signal, tellOthers }: QueueDependencies): DeliveryQueue['recover'] =>
  async (configId, since, now, limit) => {
    const { jsonRows, forUpdate, sequence } = driver.dialect;
    const result = await driver.transaction(async (tx) => {
      await tx.lock(`webhook recover ${configId}`);
      const candidates = await tx.all(
        `SELECT d.id, d.webhook_id, d.mode, d.gateway_id, d.measurement FROM deliveries d
         WHERE d.webhook_config_id = $1 AND d.state IN ('failed', 'dropped') AND d.settled_at >= $2 AND NOT d.test
           AND NOT EXISTS (SELECT 1 FROM deliveries r WHERE r.resend_of = d.id)
           AND EXISTS (SELECT 1 FROM delivery_points p WHERE p.delivery_id = d.id)
         ORDER BY d.settled_at, d.${sequence} LIMIT $3${forUpdate}`,
        [configId, since, limit + 1],
      );
      const taken = candidates.slice(0, limit);
      if (taken.length === 0) return { queued: 0, more: false };
      // A resend made while this waited for its row locks is seen now (this statement's snapshot is newer).
      const resent = new Set(
        (
          await tx.all(`SELECT resend_of FROM deliveries WHERE ${driver.dialect.idIn('resend_of', '$1')}`, [
            JSON.stringify(taken.map((row) => ({ id: String(row.id) }))),
          ])
        ).map((row) => String(row.resend_of)),
      );
      const rows = taken
        .filter((row) => !resent.has(String(row.id)))
        .map((row, i) => ({
          id: newDeliveryId(),
          old: String(row.id),
          // The same message to the receiver: it keeps the webhook-id it was sent with.
          w: String(row.webhook_id),
          mode: String(row.mode),
          g: String(row.gateway_id),
          m: String(row.measurement),
          i,
        }));
      if (rows.length === 0) return { queued: 0, more: candidates.length > limit };
      const json = JSON.stringify(rows);
      await tx.run(
        `INSERT INTO deliveries (id, webhook_id, webhook_config_id, mode, gateway_id, measurement, state, attempts, next_attempt_at, accepted_at, created_at, resend_of)
         SELECT x.id, x.w, $2, x.mode, x.g, x.m, 'queued', 0, $3, $3, $3, x.old FROM ${jsonRows('$1', 'x', recoveredInput)} ORDER BY x.i`,
        [json, configId, now],
      );
      // Only points of devices still linked are there to copy (an unlink took the others).
      await tx.run(
        `INSERT INTO delivery_points (delivery_id, webhook_config_id, device_id, gateway_id, measurement, point, accepted_at)
         SELECT x.id, p.webhook_config_id, p.device_id, p.gateway_id, p.measurement, p.point, $2
         FROM ${jsonRows('$1', 'x', recoveredInput)} JOIN delivery_points p ON p.delivery_id = x.old ORDER BY x.i, p.seq`,
        [json, now],
      );
      await tellOthers(tx);
      return { queued: rows.length, more: candidates.length > limit };
    });
    if (result.queued > 0) signal.announce();
    return result;
  };
