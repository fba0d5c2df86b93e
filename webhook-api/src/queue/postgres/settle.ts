// PostgreSQL's settlement: every settlement of a write in one statement, kept prepared on each
// connection: the deliveries `owner` still holds are updated (compare-and-swap on the lease, or on
// the endpoint cursor's for a logged point) and
// their attempts logged; the ids it answers are the ones settled.
import type { SqlQueryable } from '../../store/sql-driver.ts';
import type { Settlement } from '../delivery-queue.ts';
import { heldBy, settlementRow } from '../settlement-rows.ts';

const statement = {
  name: 'webhook_settle',
  // The settlements are read from the JSON once (a materialized CTE), where each reference to the
  // parameter would parse it again; the ids go to the primary key as an array, so the planner looks
  // them up rather than hashing the table.
  text: `WITH x AS MATERIALIZED (
     SELECT * FROM json_to_recordset($1::json) AS x (id text, state text, next bigint, attempt bigint, outcome text, status bigint,
       error text, body text, started bigint, duration double precision, points bigint)
   ), s AS (
     UPDATE deliveries SET
       state = x.state,
       attempts = deliveries.attempts + 1,
       next_attempt_at = COALESCE(x.next, deliveries.next_attempt_at),
       settled_at = CASE WHEN x.state = 'queued' THEN NULL ELSE CAST($3 AS BIGINT) END,
       lease_owner = NULL,
       lease_until = NULL
     FROM x
     WHERE deliveries.id = x.id AND deliveries.id = ANY (ARRAY(SELECT id FROM x))
       AND ${heldBy('deliveries', '$2')}
     RETURNING deliveries.id, deliveries.webhook_config_id
   )
   INSERT INTO delivery_attempts
     (delivery_id, webhook_config_id, attempt, outcome, response_status, error, response_body, started_at, duration_ms, point_count)
   SELECT x.id, s.webhook_config_id, x.attempt, x.outcome, x.status, x.error, x.body, x.started, x.duration, x.points
   FROM x JOIN s ON s.id = x.id
   RETURNING delivery_id`,
};

/** Writes `settlements` in `tx` (one statement): the ids settled. */
export async function settleIn(tx: SqlQueryable, owner: string, settled: readonly Settlement[], now: number): Promise<Set<string>> {
  const rows = await tx.all(statement, [JSON.stringify(settled.map(settlementRow)), owner, now]);
  return new Set(rows.map((row) => String(row.delivery_id)));
}
