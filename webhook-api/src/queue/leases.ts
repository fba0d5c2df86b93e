// A deliverer's leases, the same statements in both dialects: renewed while its requests are in
// flight, given back at a clean shutdown, and when the next queued delivery falls due (or a lease
// runs out) so an idle deliverer knows when to look again (a disabled endpoint's deliveries wait, so not
// those).
import type { SqlDriver } from '../store/sql-driver.ts';
import type { DeliveryQueue } from './delivery-queue.ts';

export const renewLeases =
  (driver: SqlDriver): DeliveryQueue['renewLeases'] =>
  (owner, ids, until) =>
    driver.run(
      {
        name: 'webhook_renew_leases',
        text: `UPDATE deliveries SET lease_until = $1 WHERE ${driver.dialect.idIn('id', '$3')} AND lease_owner = $2 AND state = 'queued'`,
      },
      [until, owner, JSON.stringify(ids.map((id) => ({ id })))],
    );

export const releaseLeases =
  (driver: SqlDriver): DeliveryQueue['release'] =>
  (owner) =>
    driver.run(`UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1 AND state = 'queued'`, [owner]);

export const nextDueAt =
  (driver: SqlDriver): DeliveryQueue['nextDueAt'] =>
  async () => {
    const row = await driver.one(
      `SELECT MIN(CASE WHEN lease_until IS NOT NULL AND lease_until > next_attempt_at THEN lease_until ELSE next_attempt_at END) AS at
       FROM deliveries WHERE state = 'queued' AND webhook_config_id NOT IN (SELECT id FROM webhook_configs WHERE status <> 'Active')`,
    );
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  };
