// SQLite's settlement: prepared statements a row at a time in one transaction, cheaper in process
// than a JSON parameter read back column by column (and joined to itself). A settlement counts only
// while `owner` still holds the delivery's lease, or its endpoint's cursor for a logged point
// (compare-and-swap on it).
import type { SqlQueryable } from '../../store/sql-driver.ts';
import type { Settlement } from '../delivery-queue.ts';
import { heldBy, settlementRow } from '../settlement-rows.ts';

// Built once: the driver finds a prepared statement by its text.
const settleRow = `UPDATE deliveries SET state = $1, attempts = attempts + 1, next_attempt_at = COALESCE($2, next_attempt_at), settled_at = $3,
    lease_owner = NULL, lease_until = NULL
  WHERE id = $4 AND ${heldBy('deliveries', '$5')} RETURNING webhook_config_id`;
const logAttempt = `INSERT INTO delivery_attempts
    (delivery_id, webhook_config_id, attempt, outcome, response_status, error, response_body, started_at, duration_ms, point_count)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;

/** Writes `settlements` in `tx`: the ids settled. */
export async function settleIn(tx: SqlQueryable, owner: string, settlements: readonly Settlement[], now: number): Promise<Set<string>> {
  const settled = new Set<string>();
  for (const x of settlements.map(settlementRow)) {
    const held = await tx.one(settleRow, [x.state, x.next, x.state === 'queued' ? null : now, x.id, owner]);
    if (!held) continue;
    await tx.run(logAttempt, [x.id, String(held.webhook_config_id), x.attempt, x.outcome, x.status, x.error, x.body, x.started, x.duration, x.points]);
    settled.add(x.id);
  }
  return settled;
}
