// The usual ingest on PostgreSQL: Realtime points that go only to one endpoint's log
// (endpoint-logs.ts) are written by one statement that commits on its own, after routing's
// (routing.ts); any other ingest is the transaction routeAndQueue writes.
import { newDeliveryId } from './delivery-ids.ts';
import type { SqlDialect, SqlQueryable, SqlRow } from '../store/sql-driver.ts';
import type { QueuedPoint } from './delivery-queue.ts';
import { insertPoints, insertRealtime, type Routed } from './routing.ts';
import { distinctStreams, logStream, streamKey } from './streams.ts';

/** An ingest whose points go only to one endpoint's log: its deliveries, their point rows, the log (none when nothing queues). */
export interface LoggedOnly {
  readonly deliveries: readonly { id: string; cfg: string; g: string; m: string; t: string | null; st: 'logged'; s: null }[];
  readonly rows: readonly { did: string; cfg: string; d: number; g: string; m: string; p: string }[];
  readonly logs: readonly string[];
  readonly skipped: number;
}

/**
 * The rows of `routes` (routesOf) when every one that queues goes to one endpoint log whose cursor
 * row is there (Realtime, ordering None): the usual ingest, which needs no transaction of several
 * statements (queueLoggedOnly). Undefined otherwise. One log only: its cursor row is then the one row
 * the statement locks (the last lock it takes), which closes no cycle with a deliverer renewing or
 * giving back several cursors in one statement, in an order of its own; two rows locked in the
 * statement's order could (the transaction's writes lock no cursor a deliverer holds).
 */
export function loggedOnly(routes: readonly SqlRow[], points: readonly QueuedPoint[], traceContext: string | null): LoggedOnly | undefined {
  const deliveries: LoggedOnly['deliveries'][number][] = [];
  const rows: LoggedOnly['rows'][number][] = [];
  const logs = new Set<string>();
  let skipped = 0;
  for (const route of routes) {
    const point = points[Number(route.i)];
    if (!point) throw new Error('routing answered a point that was not sent');
    if (route.status !== 'Active') {
      skipped += 1;
      continue;
    }
    if (route.mode !== 'Realtime' || route.ordering === 'PerDevice' || Number(route.cursored) !== 1) return undefined;
    const id = newDeliveryId();
    const cfg = String(route.cfg);
    logs.add(cfg);
    if (logs.size > 1) return undefined;
    deliveries.push({ id, cfg, g: point.gatewayId, m: point.measurement, t: traceContext, st: 'logged', s: null });
    rows.push({ did: id, cfg, d: point.deviceId, g: point.gatewayId, m: point.measurement, p: point.point });
  }
  return { deliveries, rows, logs: [...logs], skipped };
}

/** A dialect's statements as parts of one: the endpoint logs' locks (their keys a JSON array parameter) and the notification. */
export interface InOneStatement {
  readonly lockStreams: (keys: string) => string;
  readonly tellOthers: string;
}

/**
 * Writes `plan` in one statement that commits on its own (a dialect with writable CTEs): the logs'
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
  plan: LoggedOnly,
  now: number,
  parts: InOneStatement,
): Promise<Routed> {
  if (plan.rows.length === 0) return { queued: 0, skipped: plan.skipped, announce: false };
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
      JSON.stringify(plan.deliveries),
      now,
      JSON.stringify(plan.logs.map((cfg) => ({ cfg }))),
      JSON.stringify(plan.rows),
      JSON.stringify(distinctStreams(plan.logs.map((cfg) => ({ cfg, stream: logStream }))).map(streamKey)),
    ],
  );
  return { queued: plan.rows.length, skipped: plan.skipped, announce: true };
}
