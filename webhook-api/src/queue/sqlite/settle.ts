// SQLite's settlement: prepared statements a row at a time in one transaction, cheaper in process
// than a JSON parameter read back column by column (and joined to itself). A settlement counts only
// while `owner` still holds the delivery's lease, or its endpoint's cursor for a logged point
// (compare-and-swap on it). The cursors `owner` holds are read once for the transaction, which
// holds the write lock from its start (BEGIN IMMEDIATE), so none changes hands meanwhile: a
// settlement naming one of them as its endpoint (a deliverer's always name theirs) checks the row's
// own columns alone, where looking the cursor up for each row cost half of the update (9 µs a row
// against 5 in the queue's micro-benchmark). A row of another endpoint than the one named, or a
// settlement naming none or one not held, is checked the whole way (heldBy), and its attempt line
// goes to the row's own endpoint.
import type { SqlQueryable } from '../../store/sql-driver.ts';
import type { Settlement } from '../delivery-queue.ts';
import { heldBy, leasedBy, settlementRow } from '../settlement-rows.ts';

// Built once: the driver finds a prepared statement by its text.
const settledColumns = `state = $1, attempts = attempts + 1, next_attempt_at = COALESCE($2, next_attempt_at), settled_at = $3,
    lease_owner = NULL, lease_until = NULL`;
const settleRow = `UPDATE deliveries SET ${settledColumns} WHERE id = $4 AND ${heldBy('deliveries', '$5')} RETURNING webhook_config_id`;
/** A delivery of endpoint $6, whose cursor `owner` holds: leased by `owner`, or logged there. */
const settleAtHeldEndpoint = `UPDATE deliveries SET ${settledColumns}
  WHERE id = $4 AND webhook_config_id = $6 AND (${leasedBy('deliveries', '$5')} OR state = 'logged')`;
const heldCursors = 'SELECT webhook_config_id FROM endpoint_cursors WHERE lease_owner = $1';
const logAttempt = `INSERT INTO delivery_attempts
    (delivery_id, webhook_config_id, attempt, outcome, response_status, error, response_body, started_at, duration_ms, point_count)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;

/** Writes `settlements` in `tx` (a transaction holding the write lock): the ids settled. */
export async function settleIn(tx: SqlQueryable, owner: string, settlements: readonly Settlement[], now: number): Promise<Set<string>> {
  const settled = new Set<string>();
  if (settlements.length === 0) return settled;
  const held = settlements.some((s) => s.endpoint !== undefined)
    ? new Set((await tx.all(heldCursors, [owner])).map((row) => String(row.webhook_config_id)))
    : new Set<string>();
  for (const settlement of settlements) {
    const x = settlementRow(settlement);
    const values = [x.state, x.next, x.state === 'queued' ? null : now, x.id, owner];
    // The endpoint the deliverer sent it to, where it says (a deliverer's settlements always do).
    const endpoint = settlement.endpoint?.configId;
    let configId: string | undefined;
    if (endpoint !== undefined && held.has(endpoint) && (await tx.run(settleAtHeldEndpoint, [...values, endpoint])) > 0) configId = endpoint;
    else {
      const row = await tx.one(settleRow, values);
      if (row) configId = String(row.webhook_config_id);
    }
    if (configId === undefined) continue;
    await tx.run(logAttempt, [x.id, configId, x.attempt, x.outcome, x.status, x.error, x.body, x.started, x.duration, x.points]);
    settled.add(x.id);
  }
  return settled;
}
