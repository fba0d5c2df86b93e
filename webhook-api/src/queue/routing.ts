// Ingest's routing, the same in both dialects: which configurations each point goes to, per the
// scopes as they are in this transaction (any enabled scope of the link that matches), and the rows
// that queue it: a delivery per (Realtime point, configuration); a Batch point joins its group's
// open batch (batch-fill.ts), which the dialect finds and locks; and a point row per pair, which
// refers to its delivery from the start (no point is updated later). A PerDevice configuration's
// new delivery joins its stream (streams.ts): its head if the stream is free, else held.
import { newDeliveryId } from './delivery-ids.ts';
import type { SqlDialect, SqlQueryable, SqlRow } from '../store/sql-driver.ts';
import { fillBatches, groupKey, type BatchFill, type BatchGroup, type BatchRules, type NewBatch, type OpenBatch } from './batch-fill.ts';
import { messageIdOf, type QueuedPoint } from './delivery-queue.ts';
import { batchStream, busyStreams, deviceStream, logStream, streamKey, type StreamKey, type StreamLock } from './streams.ts';

const pointInput = { i: 'bigint', d: 'bigint', c: 'text', m: 'text' } as const;
const deliveryInput = { id: 'text', cfg: 'text', g: 'text', m: 'text', t: 'text', st: 'text', s: 'text' } as const;
const pointRowInput = { did: 'text', cfg: 'text', d: 'bigint', g: 'text', m: 'text', p: 'text' } as const;
const joinedInput = { id: 'text', n: 'bigint', o: 'bigint', t: 'text' } as const;
const createdInput = { id: 'text', cfg: 'text', g: 'text', m: 'text', n: 'bigint', o: 'bigint', due: 'bigint', t: 'text', st: 'text', s: 'text' } as const;

/** The dialect's way to find the open batches of `groups` (by groupKey) and hold them until the transaction ends. */
export type OpenBatchLock = (tx: SqlQueryable, groups: readonly BatchGroup[], links: readonly { cfg: string; d: number }[]) => Promise<Map<string, OpenBatch>>;

export interface Routed {
  /** (point, configuration) pairs queued. */
  readonly queued: number;
  /** (point, configuration) pairs the scopes matched but not queued, the configuration being disabled. */
  readonly skipped: number;
  /** Whether a deliverer has something new to look at: a Realtime delivery, a batch made or due now. */
  readonly announce: boolean;
}

/**
 * Which configurations each of `points` goes to (`i`: its index), per the scopes as `db` reads them
 * now, in the order the points came (so a receiver sees them in that order when nothing is retried),
 * with what routing needs of each configuration and whether its endpoint has a cursor row.
 */
export async function routesOf(db: SqlQueryable, jsonRows: SqlDialect['jsonRows'], points: readonly QueuedPoint[]): Promise<SqlRow[]> {
  const routes = await db.all(
    {
      // Named: PostgreSQL plans it once per connection, where planning it took longer than running it.
      name: 'webhook_route_points',
      text: `SELECT DISTINCT p.i AS i, c.id AS cfg, c.delivery_mode AS mode, c.status AS status, c.ordering AS ordering,
       EXISTS (SELECT 1 FROM endpoint_cursors ec WHERE ec.webhook_config_id = c.id) AS cursored
     FROM ${jsonRows('$1', 'p', pointInput)}
     JOIN device_links l ON l.device_id = p.d
     JOIN webhook_configs c ON c.id = l.webhook_config_id
     WHERE EXISTS (SELECT 1 FROM scopes s WHERE s.webhook_config_id = l.webhook_config_id AND s.device_id = l.device_id AND s.enabled
       AND (s.scope_level = 'Device' OR (s.connection_tag = p.c AND (s.scope_level = 'Connection' OR s.measurement = p.m))))`,
    },
    [JSON.stringify(points.map((p, i) => ({ i, d: p.deviceId, c: p.connectionTag, m: p.measurement })))],
  );
  return routes.sort((a, b) => Number(a.i) - Number(b.i));
}

/** A delivery row of a Realtime point: logged (its endpoint's log), or queued or held in its device's stream. */
export interface RealtimeRow {
  readonly id: string;
  readonly cfg: string;
  readonly g: string;
  readonly m: string;
  readonly t: string | null;
  st: 'logged' | 'queued' | 'held';
  readonly s: string | null;
}

/** A point row with its delivery id, or the Batch group whose next batch slot it takes. */
export interface PointRow {
  did: string | null;
  readonly group: number;
  readonly cfg: string;
  readonly d: number;
  readonly g: string;
  readonly m: string;
  readonly p: string;
}

/** What routes (routesOf) queue, before anything is locked or written. */
export interface RoutePlan {
  readonly realtime: RealtimeRow[];
  /** The configurations whose endpoint logs get points (Realtime, ordering None): their cursors are marked active first. */
  readonly logged: ReadonlySet<string>;
  /** Those of them whose endpoint had no cursor row when routed: one is made (a cursor row goes only with its configuration). */
  readonly unlogged: ReadonlySet<string>;
  /** The streams of the PerDevice configurations' new deliveries (a Realtime one's device, a Batch group's gateway and measurement). */
  readonly ordered: readonly StreamKey[];
  readonly orderedGroups: ReadonlySet<string>;
  readonly rows: PointRow[];
  readonly groups: readonly BatchGroup[];
  readonly batchLinks: ReadonlyMap<string, { cfg: string; d: number }>;
  /** (point, configuration) pairs the scopes matched but not queued, the configuration being disabled. */
  readonly skipped: number;
}

/** The rows `routes` queue for `points` (each Realtime delivery with its id). */
export function planRoutes(routes: readonly SqlRow[], points: readonly QueuedPoint[], traceContext: string | null): RoutePlan {
  let skipped = 0;
  const realtime: RealtimeRow[] = [];
  const logged = new Set<string>();
  const unlogged = new Set<string>();
  const ordered: StreamKey[] = [];
  const orderedGroups = new Set<string>();
  const rows: PointRow[] = [];
  const groups: BatchGroup[] = [];
  const groupIndex = new Map<string, number>();
  const batchLinks = new Map<string, { cfg: string; d: number }>();
  for (const route of routes) {
    const point = points[Number(route.i)];
    if (!point) throw new Error('routing answered a point that was not sent');
    // A disabled endpoint gets nothing new: what is queued for it waits, what comes meanwhile is not kept.
    if (route.status !== 'Active') {
      skipped += 1;
      continue;
    }
    const cfg = String(route.cfg);
    const row = { cfg, d: point.deviceId, g: point.gatewayId, m: point.measurement, p: point.point };
    const inOrder = route.ordering === 'PerDevice';
    if (route.mode === 'Realtime') {
      const id = newDeliveryId();
      const stream = inOrder ? deviceStream(point.deviceId) : null;
      if (stream !== null) ordered.push({ cfg, stream });
      if (stream === null) logged.add(cfg);
      if (stream === null && Number(route.cursored) !== 1) unlogged.add(cfg);
      realtime.push({ id, cfg, g: point.gatewayId, m: point.measurement, t: traceContext, st: stream === null ? 'logged' : 'queued', s: stream });
      rows.push({ ...row, did: id, group: -1 });
      continue;
    }
    const key = groupKey(cfg, point.gatewayId, point.measurement);
    if (inOrder && !orderedGroups.has(key)) {
      orderedGroups.add(key);
      ordered.push({ cfg, stream: batchStream(point.gatewayId, point.measurement) });
    }
    let index = groupIndex.get(key);
    if (index === undefined) {
      index = groups.push({ cfg, g: point.gatewayId, m: point.measurement, count: 0 }) - 1;
      groupIndex.set(key, index);
    }
    const group = groups[index] as BatchGroup;
    groups[index] = { ...group, count: group.count + 1 };
    batchLinks.set(`${cfg}\n${point.deviceId}`, { cfg, d: point.deviceId });
    rows.push({ ...row, did: null, group: index });
  }
  return { realtime, logged, unlogged, ordered, orderedGroups, rows, groups, batchLinks, skipped };
}

/** The JSON parameter of insertPoints: `rows` as its columns. */
export const pointRowsJson = (rows: readonly PointRow[]) => JSON.stringify(rows.map(({ did, cfg, d, g, m, p }) => ({ did, cfg, d, g, m, p })));

/** Routes `points` and inserts what they match in `tx`. */
export async function routeAndQueue(
  tx: SqlQueryable,
  { jsonRows, writableCtes }: SqlDialect,
  points: readonly QueuedPoint[],
  now: number,
  batches: { readonly rules: BatchRules; readonly lockOpen: OpenBatchLock },
  {
    traceContext = null,
    lockStreams = () => Promise.resolve(),
    tellOthers = () => Promise.resolve(),
    plan: given,
  }: {
    /** The ingest span's `traceparent`, kept with each delivery (a batch keeps several) for its attempts' span links. */
    readonly traceContext?: string | null;
    /** How a PerDevice configuration's streams and the endpoint logs are held while new deliveries take their places in them. */
    readonly lockStreams?: StreamLock;
    /** Tells the other processes' deliverers, with the commit, that there is something new to look at. */
    readonly tellOthers?: (tx: SqlQueryable) => Promise<void>;
    /** What the points' routes queue (planRoutes), when read already. */
    readonly plan?: RoutePlan;
  } = {},
): Promise<Routed> {
  const { realtime, logged, unlogged, ordered, orderedGroups, rows, groups, batchLinks, skipped } =
    given ?? planRoutes(await routesOf(tx, jsonRows, points), points, traceContext);
  if (rows.length === 0) return { queued: 0, skipped, announce: false };
  // A stream that has a delivery queued or held already: the new ones wait their turn (held); the
  // first of a free stream is its head. Its lock first, before any row is locked (settlements take
  // the same locks, then rows).
  let busy = new Set<string>();
  const logs = [...logged].map((cfg) => ({ cfg, stream: logStream }));
  // Told before the locks, not after: the notification goes with the commit wherever it is sent, and
  // a statement fewer under an endpoint log's lock is a turn sooner for the next ingest waiting on it.
  if (realtime.length > 0) await tellOthers(tx);
  if (ordered.length > 0 || logs.length > 0) await lockStreams(tx, [...ordered, ...logs]);
  if (ordered.length > 0) busy = await busyStreams(tx, jsonRows, ordered);
  /** Whether a new delivery of `stream` waits its turn; the first of a free stream does not, and takes it. */
  const held = (cfg: string, stream: string | null): boolean => {
    if (stream === null) return false;
    const key = streamKey({ cfg, stream });
    if (busy.has(key)) return true;
    busy.add(key);
    return false;
  };
  for (const delivery of realtime) if (held(delivery.cfg, delivery.s)) delivery.st = 'held';
  if (unlogged.size > 0) await makeCursors(tx, jsonRows, [...unlogged]);
  const cursors = JSON.stringify([...logged].map((cfg) => ({ cfg })));
  if (groups.length === 0 && writableCtes) {
    // Realtime points alone, the usual ingest: the cursors marked, the deliveries and their points
    // in one statement, so an endpoint log's lock is held for it and the commit, not four round trips.
    await tx.run(
      `WITH activated AS (${activateLogs(jsonRows, '$3')}), queued AS (${insertRealtime(jsonRows, '$1', '$2')}) ${insertPoints(jsonRows, '$4', '$2')}`,
      [JSON.stringify(realtime), now, cursors, pointRowsJson(rows)],
    );
    return { queued: rows.length, skipped, announce: true };
  }
  if (logged.size > 0) await tx.run(activateLogs(jsonRows, '$1'), [cursors]);
  if (realtime.length > 0) await tx.run(insertRealtime(jsonRows, '$1', '$2'), [JSON.stringify(realtime), now]);
  let fill: BatchFill | undefined;
  if (groups.length > 0) {
    fill = fillBatches(groups, await batches.lockOpen(tx, groups, [...batchLinks.values()]), batches.rules, now, traceContext);
    const streamOf = (b: NewBatch) => (orderedGroups.has(groupKey(b.cfg, b.g, b.m)) ? batchStream(b.g, b.m) : null);
    await writeBatches(tx, jsonRows, fill, now, (b) => {
      const stream = streamOf(b);
      return { s: stream, st: held(b.cfg, stream) ? 'held' : 'queued' };
    });
    const next = fill.assigned.map(() => 0);
    for (const row of rows) {
      if (row.group < 0) continue;
      const slot = next[row.group] ?? 0;
      next[row.group] = slot + 1;
      row.did = fill.assigned[row.group]?.[slot] ?? null;
    }
  }
  await tx.run(insertPoints(jsonRows, '$1', '$2'), [pointRowsJson(rows), now]);
  const announce = realtime.length > 0 || fill?.changedDue === true;
  if (announce && realtime.length === 0) await tellOthers(tx);
  return { queued: rows.length, skipped, announce };
}

/**
 * The endpoint logs of Realtime points are marked active, their log locks held (ingests of one
 * endpoint take turns, so its positions commit in order): a cursor row made for an endpoint that had
 * none when routed (one another ingest made meanwhile stands), the flag set on one that was given
 * back; a cursor already active is not written, so a deliverer reading it never waits on this
 * transaction (endpoint-log-schema.ts). PostgreSQL's one-statement ingest of one log writes its
 * cursor each time (logged-ingest.ts): the holder's read passes over it until that commits.
 */
async function makeCursors(tx: SqlQueryable, jsonRows: SqlDialect['jsonRows'], configs: readonly string[]): Promise<void> {
  await tx.run(
    `INSERT INTO endpoint_cursors (webhook_config_id) SELECT x.cfg FROM ${jsonRows('$1', 'x', { cfg: 'text' })} WHERE (1 = 1) ON CONFLICT (webhook_config_id) DO NOTHING`,
    [JSON.stringify(configs.map((cfg) => ({ cfg })))],
  );
}

/** Sets the active flag of the cursors named by the JSON parameter `cursors` (`[{ cfg }]`). */
const activateLogs = (jsonRows: SqlDialect['jsonRows'], cursors: string) =>
  `UPDATE endpoint_cursors SET active = (1 = 1) WHERE webhook_config_id IN (SELECT x.cfg FROM ${jsonRows(cursors, 'x', { cfg: 'text' })}) AND NOT active`;

/** Inserts the Realtime deliveries of the JSON parameter `deliveries`, accepted at `now`. */
export const insertRealtime = (jsonRows: SqlDialect['jsonRows'], deliveries: string, now: string) =>
  `INSERT INTO deliveries (id, webhook_id, webhook_config_id, mode, gateway_id, measurement, state, attempts, next_attempt_at, accepted_at, created_at, point_count, trace_context, stream)
   SELECT x.id, ${messageIdOf('x.id')}, x.cfg, 'Realtime', x.g, x.m, x.st, 0, ${now}, ${now}, ${now}, 1, x.t, x.s FROM ${jsonRows(deliveries, 'x', deliveryInput)}`;

/** Inserts the point rows of the JSON parameter `points`, each with its delivery, accepted at `now`. */
export const insertPoints = (jsonRows: SqlDialect['jsonRows'], points: string, now: string) =>
  `INSERT INTO delivery_points (delivery_id, webhook_config_id, device_id, gateway_id, measurement, point, accepted_at)
   SELECT x.did, x.cfg, x.d, x.g, x.m, x.p, ${now} FROM ${jsonRows(points, 'x', pointRowInput)}`;

/** The open batches' new counts (closed and due now when full), and the new batches. */
async function writeBatches(
  tx: SqlQueryable,
  jsonRows: SqlDialect['jsonRows'],
  fill: BatchFill,
  now: number,
  placeOf: (batch: NewBatch) => { s: string | null; st: 'queued' | 'held' },
): Promise<void> {
  if (fill.joined.length > 0) {
    await tx.run(
      `UPDATE deliveries SET point_count = x.n, batch_open = (x.o = 1), trace_context = x.t,
         next_attempt_at = CASE WHEN x.o = 1 THEN deliveries.next_attempt_at ELSE $2 END
       FROM ${jsonRows('$1', 'x', joinedInput)} WHERE deliveries.id = x.id`,
      [JSON.stringify(fill.joined.map((b) => ({ id: b.id, n: b.pointCount, o: b.open ? 1 : 0, t: b.traceContext }))), now],
    );
  }
  if (fill.created.length > 0) {
    await tx.run(
      `INSERT INTO deliveries (id, webhook_id, webhook_config_id, mode, gateway_id, measurement, state, attempts, next_attempt_at, accepted_at, created_at, point_count, batch_open, trace_context, stream)
       SELECT x.id, ${messageIdOf('x.id')}, x.cfg, 'Batch', x.g, x.m, x.st, 0, x.due, $2, $2, x.n, (x.o = 1), x.t, x.s FROM ${jsonRows('$1', 'x', createdInput)}`,
      [
        JSON.stringify(
          fill.created.map((b) => ({
            id: b.id,
            cfg: b.cfg,
            g: b.g,
            m: b.m,
            n: b.pointCount,
            o: b.open ? 1 : 0,
            due: b.dueAt,
            t: b.traceContext,
            ...placeOf(b),
          })),
        ),
        now,
      ],
    );
  }
}
