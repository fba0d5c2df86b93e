// A deliverer's leases, the same statements in both dialects: renewed while its requests are in
// flight, given back at a clean shutdown, and when the next queued delivery falls due (or a lease
// runs out) so an idle deliverer knows when to look again (a disabled endpoint's deliveries wait, so not
// those).
import type { SqlDialect, SqlDriver, SqlQueryable } from '../store/sql-driver.ts';
import type { DeliveryQueue, HeldDelivery, Rechecked } from './delivery-queue.ts';
import type { StoredConfig } from '../store/records.ts';
import { configColumns, toConfig } from '../store/row-mapping.ts';

/**
 * The endpoint cursors `owner` (a parameter) holds, locked in their key's order: every statement
 * that locks several cursors and waits for them takes them in that order (a give-back, a renewal, a
 * release), so two of them never each hold a cursor the other waits for.
 */
export const heldCursorsInOrder = (dialect: SqlDialect, owner: string) =>
  `SELECT webhook_config_id FROM endpoint_cursors WHERE lease_owner = ${owner} ORDER BY webhook_config_id${dialect.forUpdate}`;

export const renewLeases =
  (driver: SqlDriver): DeliveryQueue['renewLeases'] =>
  async (owner, ids, until) => {
    // The endpoint cursors it holds too: their logged points in its hands are not leased one by one.
    await driver.run(
      {
        name: 'webhook_renew_cursors',
        text: `UPDATE endpoint_cursors SET lease_until = $1 WHERE webhook_config_id IN (${heldCursorsInOrder(driver.dialect, '$2')})`,
      },
      [until, owner],
    );
    return driver.run(
      {
        name: 'webhook_renew_leases',
        text: `UPDATE deliveries SET lease_until = $1 WHERE ${driver.dialect.idIn('id', '$3')} AND lease_owner = $2 AND state = 'queued'`,
      },
      [until, owner, JSON.stringify(ids.map((id) => ({ id })))],
    );
  };

export const releaseLeases =
  (driver: SqlDriver): DeliveryQueue['release'] =>
  async (owner) =>
    (await driver.run(
      `UPDATE endpoint_cursors SET lease_owner = NULL, lease_until = NULL, read_through = 0 WHERE webhook_config_id IN (${heldCursorsInOrder(driver.dialect, '$1')})`,
      [owner],
    )) + (await driver.run(`UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1 AND state = 'queued'`, [owner]));

export const nextDueAt =
  (driver: SqlDriver): DeliveryQueue['nextDueAt'] =>
  async () => {
    const row = await driver.one(
      `SELECT MIN(CASE WHEN lease_until IS NOT NULL AND lease_until > next_attempt_at THEN lease_until ELSE next_attempt_at END) AS at
       FROM deliveries WHERE state = 'queued' AND webhook_config_id NOT IN (SELECT id FROM webhook_configs WHERE status <> 'Active')`,
    );
    // An endpoint log with points is due now, or when the lease of the cursor's holder runs out.
    const logs = await driver.one(
      `SELECT MIN(COALESCE(k.lease_until, 0)) AS at FROM endpoint_cursors k
       WHERE k.active AND k.webhook_config_id NOT IN (SELECT id FROM webhook_configs WHERE status <> 'Active')
         AND EXISTS (SELECT 1 FROM deliveries d WHERE d.webhook_config_id = k.webhook_config_id AND d.state = 'logged')`,
    );
    const times = [row?.at, logs?.at].filter((at) => at !== null && at !== undefined).map(Number);
    return times.length === 0 ? undefined : Math.min(...times);
  };

/**
 * Of the deliveries `owner` claimed ahead (`held`), those that may be sent now, each with its
 * configuration as it is now (a PUT since the claim applies to it), read in `db`; the ones still
 * held but not to be sent (endpoint disabled or paused, a batch's points changed by an unlink, or
 * the lease run out: another deliverer may take it now) given back to the queue. A point read ahead
 * from its endpoint's log (store/log-read-ahead.ts) is held by the endpoint's cursor: one not to be
 * sent now (the same rules, the cursor's lease for its own) is given back to the log, the cursor set
 * back to before it (`setBack` names the endpoint: its holder lets go of every point of it it holds,
 * all read after, and sent none of them since, points of an endpoint going in log order); one gone
 * (its configuration deleted, its device unlinked) is in neither.
 */
export async function recheckIn(db: SqlQueryable, dialect: SqlDialect, owner: string, held: readonly HeldDelivery[], now: number): Promise<Rechecked> {
  const sendable = new Map<string, StoredConfig>();
  const setBack = new Map<string, number>();
  if (held.length === 0) return { sendable, setBack: new Set() };
  // A Realtime delivery's one point goes with its row (an unlink deletes both); a batch's are counted.
  const rows = await db.all(
    {
      name: 'webhook_recheck_held',
      text: `SELECT d.id AS delivery_id, d.state AS state, d.webhook_config_id AS cfg, d.${dialect.sequence} AS position, x.n AS held,
         CASE WHEN d.mode = 'Batch' THEN (SELECT COUNT(*) FROM delivery_points p WHERE p.delivery_id = d.id) ELSE x.n END AS n,
         CASE WHEN d.state = 'logged' THEN (SELECT k.lease_until FROM endpoint_cursors k WHERE k.webhook_config_id = d.webhook_config_id) ELSE d.lease_until END
           AS lease_until,
         ${configColumns
           .split(', ')
           .map((column) => `c.${column}`)
           .join(', ')}
       FROM ${dialect.jsonRows('$1', 'x', { id: 'text', n: 'bigint' })}
         JOIN deliveries d ON d.id = x.id JOIN webhook_configs c ON c.id = d.webhook_config_id
       WHERE (d.lease_owner = $2 AND d.state = 'queued')
         OR (d.state = 'logged' AND EXISTS (SELECT 1 FROM endpoint_cursors k
           WHERE k.webhook_config_id = d.webhook_config_id AND k.lease_owner = $2 AND d.${dialect.sequence} <= k.read_through))`,
    },
    [JSON.stringify(held.map(({ id, points }) => ({ id, n: points }))), owner],
  );
  const givenBack: { id: string }[] = [];
  for (const row of rows) {
    const paused = row.paused_until !== null && row.paused_until !== undefined && Number(row.paused_until) > now;
    const lapsed = row.lease_until === null || Number(row.lease_until) < now;
    if (row.status === 'Active' && !paused && !lapsed && Number(row.n) === Number(row.held)) sendable.set(String(row.delivery_id), toConfig(row));
    else if (row.state === 'logged') {
      const cfg = String(row.cfg);
      setBack.set(cfg, Math.min(setBack.get(cfg) ?? Infinity, Number(row.position) - 1));
    } else givenBack.push({ id: String(row.delivery_id) });
  }
  if (givenBack.length > 0) {
    await db.run(`UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE ${dialect.idIn('id', '$2')} AND lease_owner = $1 AND state = 'queued'`, [
      owner,
      JSON.stringify(givenBack),
    ]);
  }
  for (const [cfg, before] of setBack) {
    await db.run('UPDATE endpoint_cursors SET read_through = $3 WHERE webhook_config_id = $2 AND lease_owner = $1 AND read_through > $3', [owner, cfg, before]);
  }
  return { sendable, setBack: new Set(setBack.keys()) };
}
