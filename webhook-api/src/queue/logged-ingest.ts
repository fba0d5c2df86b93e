// The usual ingest on PostgreSQL: Realtime points that go only to one endpoint's log
// (endpoint-logs.ts) are written by one statement that commits on its own, after routing's
// (routing.ts); any other ingest is the transaction routeAndQueue writes.
import type { SqlDialect, SqlQueryable } from '../store/sql-driver.ts';
import { insertPoints, insertRealtime, pointRowsJson, type RoutePlan, type Routed } from './routing.ts';
import { distinctStreams, logStream, streamKey } from './streams.ts';

/**
 * Whether `plan` (planRoutes) is the usual ingest, which needs no transaction of several statements
 * (queueLoggedOnly): every point it queues goes to one endpoint's log whose cursor row is there
 * (Realtime, ordering None). One log only: its cursor row is then the one row the statement locks
 * (the last lock it takes), which closes no cycle with a deliverer renewing or giving back several
 * cursors in one statement (in their key's order: leases.ts, heldCursorsInOrder); two rows locked
 * in this statement's own order could (the transaction's writes lock no cursor a deliverer holds).
 */
export const isLoggedOnly = (plan: RoutePlan) => plan.groups.length === 0 && plan.ordered.length === 0 && plan.unlogged.size === 0 && plan.logged.size <= 1;

/** A dialect's statements as parts of one: the endpoint logs' locks (their keys a JSON array parameter) and the notification. */
export interface InOneStatement {
  readonly lockStreams: (keys: string) => string;
  readonly tellOthers: string;
}

/**
 * Writes `plan` (isLoggedOnly) in one statement that commits on its own (a dialect with writable CTEs): the logs'
 * locks first (every write waits for them, so positions commit in order), the notification that goes
 * with the commit, the cursors marked active, the deliveries and their points. Two round trips in
 * all with routing's, where a transaction took six, each one under the lock waiting for its turn of
 * the event loop.
 *
 * The cursor is written whether it looks active or not: the statement reads by a snapshot taken
 * before it waited for the lock, so a cursor given back meanwhile (made inactive, its log having
 * been empty) would still look active to it, and its new points would wait for the next ingest. An
 * update finds the row as it is after that commit and sets the flag there. Its holder's read of the
 * logs passes over it (SKIP LOCKED) until the statement commits, and a renewal of its lease waits.
 */
export async function queueLoggedOnly(
  db: SqlQueryable,
  jsonRows: SqlDialect['jsonRows'],
  plan: RoutePlan,
  now: number,
  parts: InOneStatement,
): Promise<Routed> {
  if (plan.rows.length === 0) return { queued: 0, skipped: plan.skipped, announce: false };
  const logs = [...plan.logged];
  // Every write waits for `locked`, evaluated once before any of them (an uncorrelated subquery); its
  // counts make the locks and the notification run (a volatile function's output is never left out).
  const locked = '(SELECT yes FROM locked)';
  await db.run(
    {
      name: 'webhook_ingest_logged',
      text: `WITH locked AS MATERIALIZED (SELECT (SELECT count(*) FROM (${parts.lockStreams('$5')}) l) + (SELECT count(*) FROM (${parts.tellOthers}) t) >= 0 AS yes),
         activated AS (UPDATE endpoint_cursors SET active = (1 = 1) WHERE webhook_config_id IN (SELECT x.cfg FROM ${jsonRows('$3', 'x', { cfg: 'text' })}) AND ${locked}),
         queued AS (${insertRealtime(jsonRows, '$1', '$2')} WHERE ${locked})
       ${insertPoints(jsonRows, '$4', '$2')} WHERE ${locked}`,
    },
    [
      JSON.stringify(plan.realtime),
      now,
      JSON.stringify(logs.map((cfg) => ({ cfg }))),
      pointRowsJson(plan.rows),
      JSON.stringify(distinctStreams(logs.map((cfg) => ({ cfg, stream: logStream }))).map(streamKey)),
    ],
  );
  return { queued: plan.rows.length, skipped: plan.skipped, announce: true };
}
