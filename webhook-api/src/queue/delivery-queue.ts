// The delivery queue on any SqlDriver: ingest routes points to configurations and queues them in
// one transaction; deliverers form batches, claim due work under a lease, and settle it with a
// compare-and-swap on the lease, many rows per statement. No transaction is ever open while a
// request is in flight: a claim and a settlement are each one short transaction.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { DeliveryMode } from '../delivery/outgoing.ts';
import { configColumns, toConfig } from '../store/row-mapping.ts';
import type { SqlDriver, SqlQueryable, SqlRow, SqlValue } from '../store/sql-driver.ts';
import type { Page, StoredConfig } from '../store/webhook-store.ts';

/** A point as ingest accepted it, with what routing needs and its delivered shape as JSON text. */
export interface QueuedPoint {
  readonly deviceId: number;
  readonly gatewayId: string;
  readonly connectionTag: string;
  readonly measurement: string;
  /** {"Measurement","Fields","Tags","UtcTimestamp"} as JSON text: what the endpoint receives. */
  readonly point: string;
}

/** A queued delivery a deliverer holds under its lease, with its configuration as it is now. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly config: StoredConfig;
  readonly mode: DeliveryMode;
  readonly gatewayId: string;
  readonly measurement: string;
  readonly points: string[];
  /** Attempts made so far: this attempt's X-Webhook-Retry-Count. */
  readonly attempts: number;
  /** When its first point was accepted (epoch ms): its age, and the ingest-to-delivery latency. */
  readonly acceptedAt: number;
}

export type AttemptOutcomeName = 'delivered' | 'retrying' | 'dropped' | 'failed';
export const attemptOutcomes: readonly AttemptOutcomeName[] = ['delivered', 'retrying', 'dropped', 'failed'];

/** What one attempt came to, recorded in the attempt log; `retrying` queues the delivery again at `nextAttemptAt`. */
export interface Settlement {
  readonly id: string;
  readonly outcome: AttemptOutcomeName;
  readonly nextAttemptAt?: number | undefined;
  readonly attempt: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly responseBody: string;
  readonly startedAt: number;
  readonly durationMs: number;
  readonly pointCount: number;
}

/** One line of the attempt log. */
export interface AttemptRecord {
  readonly deliveryId: string;
  readonly attempt: number;
  readonly outcome: AttemptOutcomeName;
  readonly responseStatus: number | null;
  readonly error: string | null;
  readonly responseBody: string | null;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly pointCount: number;
}

export interface ClaimRequest {
  /** This deliverer: leases are taken and settled in its name only. */
  readonly owner: string;
  readonly leaseMs: number;
  readonly now: number;
  /** At most this many deliveries in all. */
  readonly limit: number;
  /** At most this many of one configuration... */
  readonly perConfig: number;
  /** ...less what this deliverer already has in flight for it. */
  readonly inFlight: ReadonlyMap<string, number>;
  /** At most this many of one company's configurations together (no bound by default)... */
  readonly perCompany?: number;
  /** ...less what this deliverer already has in flight for the company. */
  readonly inFlightByCompany?: ReadonlyMap<number, number>;
}

export interface BatchRules {
  readonly maxPoints: number;
  readonly lingerMs: number;
  readonly now: number;
}

export interface QueueStats {
  /** Deliveries waiting to be made (due or retrying), not counting points waiting for their batch. */
  readonly queued: number;
  /** Batch points not in a batch yet. */
  readonly gathering: number;
  /** When the oldest of those was accepted (epoch ms). */
  readonly oldestAcceptedAt: number | undefined;
}

export interface DeliveryQueue {
  /** Routes the points per the scopes as they are now and queues what they match, in one transaction: the number of (point, configuration) pairs queued. */
  ingest(points: readonly QueuedPoint[], now: number): Promise<{ readonly queued: number }>;
  /** Turns waiting Batch points into deliveries where a batch is full or has waited `lingerMs`; when the next one will be due, if any. */
  formBatches(rules: BatchRules): Promise<{ readonly formed: number; readonly nextAt: number | undefined }>;
  claim(request: ClaimRequest): Promise<ClaimedDelivery[]>;
  /** Extends the leases `owner` holds on `ids` (looked up by id: the queue keeps settled rows too); the number extended. */
  renewLeases(owner: string, ids: readonly string[], until: number): Promise<number>;
  /** Records attempts of deliveries `owner` still holds; the ids whose lease was lost (taken over, or the delivery cancelled) are left out of the answer. */
  settle(owner: string, settlements: readonly Settlement[], now: number): Promise<Set<string>>;
  /** Gives back every lease `owner` holds (a clean shutdown), so others may take the work at once. */
  release(owner: string): Promise<number>;
  /** When the next queued delivery becomes due or its lease expires (epoch ms), if any is queued. */
  nextDueAt(): Promise<number | undefined>;
  pageAttempts(
    configId: string,
    filter: { readonly outcome?: AttemptOutcomeName | undefined },
    page: { limit: number; after?: number | undefined },
  ): Promise<Page<AttemptRecord>>;
  /**
   * Queues a dropped or failed delivery of `configId` again, as a new delivery with its points of
   * devices still linked (`resent`: its id). Refused while it or a resend of it is queued, when it
   * was delivered, and when none of its devices is linked any more.
   */
  resend(
    configId: string,
    deliveryId: string,
    now: number,
  ): Promise<{ readonly resent: string } | 'not-found' | 'not-settled' | 'resend-queued' | 'delivered' | 'unlinked'>;
  /** Deletes delivered, dropped and failed deliveries settled before `before`, at most `limit`; how many. */
  prune(before: number, limit: number): Promise<number>;
  stats(): Promise<QueueStats>;
  /** Called in this process when new work is queued (ingest, resend, a batch formed). */
  onWork(listener: () => void): () => void;
}

const pointInput = { i: 'bigint', d: 'bigint', c: 'text', m: 'text' } as const;
const deliveryInput = { id: 'text', cfg: 'text', mode: 'text', g: 'text', m: 'text', at: 'bigint' } as const;
const batchInput = { id: 'text', cfg: 'text', g: 'text', m: 'text', k: 'bigint' } as const;
const pointRowInput = { did: 'text', cfg: 'text', d: 'bigint', g: 'text', m: 'text', p: 'text', at: 'bigint' } as const;
const settleInput = {
  id: 'text',
  state: 'text',
  next: 'bigint',
  attempt: 'bigint',
  outcome: 'text',
  status: 'bigint',
  error: 'text',
  body: 'text',
  started: 'bigint',
  duration: 'double precision',
  points: 'bigint',
} as const;

/**
 * Text from an endpoint or the network, fit for any database's text column and any log: control
 * characters other than tab and line breaks (NUL above all: PostgreSQL refuses it) and unpaired
 * surrogates become U+FFFD.
 */
function storableText(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this removes
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\ufffd').toWellFormed();
}

const json = (rows: readonly object[]) => JSON.stringify(rows);
const numberOrUndefined = (value: unknown) => (value === null || value === undefined ? undefined : Number(value));

/** How many times ingest routes again when a configuration was deleted between its routing and its insert (PostgreSQL). */
const ingestRetries = 3;

export function createDeliveryQueue(driver: SqlDriver): DeliveryQueue {
  const { sequence, skipLocked, jsonRows, idIn } = driver.dialect;
  const work = new EventEmitter();
  const announce = () => {
    work.emit('work');
  };
  const isPostgres = driver.dialect.writableWith;
  /** Tells the deliverers of other processes: on PostgreSQL, sent when the transaction commits. */
  const notifyOthers = (q: SqlQueryable) => (isPostgres ? q.run("SELECT pg_notify('webhook_work', '')") : Promise.resolve(0));

  const routeSql = `SELECT DISTINCT p.i AS i, c.id AS cfg, c.delivery_mode AS mode
     FROM ${jsonRows('$1', 'p', pointInput)}
     JOIN device_links l ON l.device_id = p.d
     JOIN webhook_configs c ON c.id = l.webhook_config_id
     WHERE EXISTS (SELECT 1 FROM scopes s WHERE s.webhook_config_id = l.webhook_config_id AND s.device_id = l.device_id AND s.enabled
       AND (s.scope_level = 'Device' OR (s.connection_tag = p.c AND (s.scope_level = 'Connection' OR s.measurement = p.m))))`;
  const insertDeliveriesSql = `INSERT INTO deliveries (id, webhook_config_id, mode, gateway_id, measurement, state, attempts, next_attempt_at, accepted_at, created_at)
     SELECT x.id, x.cfg, x.mode, x.g, x.m, 'queued', 0, x.at, x.at, x.at FROM ${jsonRows('$1', 'x', deliveryInput)}`;
  const insertPointsSql = `INSERT INTO delivery_points (delivery_id, webhook_config_id, device_id, gateway_id, measurement, point, accepted_at)
     SELECT x.did, x.cfg, x.d, x.g, x.m, x.p, x.at FROM ${jsonRows('$1', 'x', pointRowInput)}`;

  async function ingestOnce(points: readonly QueuedPoint[], now: number): Promise<number> {
    return driver.transaction(async (tx) => {
      const routes = await tx.all(routeSql, [json(points.map((p, i) => ({ i, d: p.deviceId, c: p.connectionTag, m: p.measurement })))]);
      if (routes.length === 0) return 0;
      const deliveries: object[] = [];
      const rows: object[] = [];
      // In the order the points came, so a receiver sees them in that order when nothing is retried.
      routes.sort((a, b) => Number(a.i) - Number(b.i));
      for (const route of routes) {
        const point = points[Number(route.i)];
        if (!point) throw new Error('routing answered a point that was not sent');
        const cfg = String(route.cfg);
        const realtime = route.mode === 'Realtime';
        const did = realtime ? randomUUID() : null;
        if (did) deliveries.push({ id: did, cfg, mode: 'Realtime', g: point.gatewayId, m: point.measurement, at: now });
        rows.push({ did, cfg, d: point.deviceId, g: point.gatewayId, m: point.measurement, p: point.point, at: now });
      }
      if (deliveries.length > 0) await tx.run(insertDeliveriesSql, [json(deliveries)]);
      await tx.run(insertPointsSql, [json(rows)]);
      await notifyOthers(tx);
      return rows.length;
    });
  }

  const settleUpdate = (from: string) => `UPDATE deliveries SET
       state = x.state,
       attempts = deliveries.attempts + 1,
       next_attempt_at = COALESCE(x.next, deliveries.next_attempt_at),
       settled_at = CASE WHEN x.state = 'queued' THEN NULL ELSE CAST($3 AS BIGINT) END,
       lease_owner = NULL,
       lease_until = NULL
     FROM ${from} WHERE deliveries.id = x.id AND ${idIn('deliveries.id', '$1')} AND deliveries.lease_owner = $2 AND deliveries.state = 'queued'`;
  const insertAttempts = (from: string) => `INSERT INTO delivery_attempts
       (delivery_id, webhook_config_id, attempt, outcome, response_status, error, response_body, started_at, duration_ms, point_count)
     SELECT x.id, s.webhook_config_id, x.attempt, x.outcome, x.status, x.error, x.body, x.started, x.duration, x.points FROM ${from}`;

  const leasedColumns = (table: string) =>
    ['id', 'webhook_config_id', 'mode', 'gateway_id', 'measurement', 'attempts', 'accepted_at', 'next_attempt_at'].map((c) => `${table}.${c}`).join(', ') +
    `, ${table}.${sequence} AS position`;
  /** A configuration's columns but its id, which the delivery's webhook_config_id gives. */
  const configColumnsOf = (table: string) =>
    configColumns
      .split(', ')
      .filter((column) => column !== 'id')
      .map((column) => `${table}.${column}`)
      .join(', ');
  /**
   * How many due rows a claim looks at: a few endpoints' worth past those of configurations that
   * reach their limit in it. Not the whole room: one endpoint with a few slots free would otherwise
   * read (and on PostgreSQL lock) hundreds of its rows to take those few; other endpoints' rows
   * further on are taken by the next claim, which a finished request calls at once.
   */
  const windowOf = (limit: number, perConfig: number) => Math.min(2000, Math.max(4 * perConfig, Math.min(2 * limit, 64)));

  /** What a claim leased: the rows, their configurations as they are now, and each one's points in order. */
  interface Leased {
    readonly claimed: SqlRow[];
    readonly configs: ReadonlyMap<string, StoredConfig>;
    readonly points: ReadonlyMap<string, string[]>;
  }

  /**
   * SQLite (in process, one writer): the next due rows from the index, those of a configuration at
   * its limit passed over; the limits applied in code; the lease taken, and the configurations and
   * points read, row by row with prepared statements (cheaper in process than a JSON parameter); one
   * short transaction.
   */
  async function leaseDueInTransaction(request: ClaimRequest): Promise<Leased> {
    const { owner, leaseMs, now, limit, perConfig, inFlight, perCompany = Number.MAX_SAFE_INTEGER, inFlightByCompany = new Map<number, number>() } = request;
    const full = [...inFlight].filter(([, n]) => n >= perConfig).map(([cfg]) => ({ cfg }));
    return driver.transaction(async (tx) => {
      const due = await tx.all(
        `SELECT id, webhook_config_id FROM deliveries
         WHERE state = 'queued' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
           AND webhook_config_id NOT IN (SELECT f.cfg FROM ${jsonRows('$2', 'f', { cfg: 'text' })})
         ORDER BY next_attempt_at, ${sequence} LIMIT $3`,
        [now, json(full), windowOf(limit, perConfig)],
      );
      const configs = new Map<string, StoredConfig>();
      const points = new Map<string, string[]>();
      if (due.length === 0) return { claimed: [], configs, points };
      for (const cfg of new Set(due.map((row) => String(row.webhook_config_id)))) {
        const row = await tx.one(`SELECT ${configColumns} FROM webhook_configs WHERE id = $1`, [cfg]);
        if (row) configs.set(cfg, toConfig(row));
      }
      // At most `perConfig` of each configuration and `perCompany` of each company, with what is in
      // flight: one tenant's slow endpoints cannot take every slot.
      const byConfig = new Map(inFlight);
      const byCompany = new Map(inFlightByCompany);
      const claimed: SqlRow[] = [];
      for (const row of due) {
        const config = configs.get(String(row.webhook_config_id));
        if (!config) continue;
        const ofConfig = byConfig.get(config.id) ?? 0;
        const ofCompany = byCompany.get(config.companyId) ?? 0;
        if (ofConfig >= perConfig || ofCompany >= perCompany) continue;
        byConfig.set(config.id, ofConfig + 1);
        byCompany.set(config.companyId, ofCompany + 1);
        const leased = await tx.one(`UPDATE deliveries SET lease_owner = $1, lease_until = $2 WHERE id = $3 RETURNING ${leasedColumns('deliveries')}`, [
          owner,
          now + leaseMs,
          String(row.id),
        ]);
        if (leased) claimed.push(leased);
        if (claimed.length >= limit) break;
      }
      for (const row of claimed) {
        const id = String(row.id);
        const rows = await tx.all(`SELECT point FROM delivery_points WHERE delivery_id = $1 ORDER BY seq`, [id]);
        if (rows.length > 0)
          points.set(
            id,
            rows.map((p) => String(p.point)),
          );
      }
      return { claimed, configs, points };
    });
  }

  const configFree = jsonRows('$2', 'f', { cfg: 'text', n: 'bigint' });
  const companiesFree = jsonRows('$8', 'g', { company: 'bigint', n: 'bigint' });
  /** PostgreSQL's claim (leaseDueInOneStatement), kept prepared on each connection. */
  const claimStatement = {
    name: 'webhook_claim',
    text: `WITH due AS (
       SELECT d.id, d.webhook_config_id, c.company_id, d.next_attempt_at, d.${sequence} AS position
       FROM deliveries d JOIN webhook_configs c ON c.id = d.webhook_config_id
       WHERE d.state = 'queued' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until < $1)
         AND d.webhook_config_id NOT IN (SELECT f.cfg FROM ${configFree} WHERE f.n = 0)
         AND c.company_id NOT IN (SELECT g.company FROM ${companiesFree} WHERE g.n = 0)
       ORDER BY d.next_attempt_at, d.${sequence} LIMIT $3${skipLocked('d')}
     ), per_config AS (
       SELECT due.*, ROW_NUMBER() OVER (PARTITION BY webhook_config_id ORDER BY next_attempt_at, position) AS rn FROM due
     ), per_company AS (
       SELECT r.*, ROW_NUMBER() OVER (PARTITION BY company_id ORDER BY next_attempt_at, position) AS crn
       FROM per_config r LEFT JOIN ${configFree} ON f.cfg = r.webhook_config_id WHERE r.rn <= COALESCE(f.n, $4)
     ), picked AS (
       SELECT r.id FROM per_company r LEFT JOIN ${companiesFree} ON g.company = r.company_id
       WHERE r.crn <= COALESCE(g.n, $9) ORDER BY r.next_attempt_at, r.position LIMIT $5
     )
     UPDATE deliveries SET lease_owner = $6, lease_until = $7 FROM webhook_configs c
     WHERE deliveries.id IN (SELECT id FROM picked) AND c.id = deliveries.webhook_config_id
     RETURNING ${leasedColumns('deliveries')}, ${configColumnsOf('c')},
       ARRAY(SELECT p.point FROM delivery_points p WHERE p.delivery_id = deliveries.id ORDER BY p.seq) AS points`,
  };

  /**
   * PostgreSQL (a round trip per statement, other deliverers alongside): one statement takes a window
   * of due rows from the index, passing over those another deliverer holds (SKIP LOCKED) and those
   * of a configuration or company at its limit, keeps at most the free slots of each, leases them,
   * and answers them with their configurations and points. The planner is told to walk the indexes:
   * with statistics taken while the queue was short (or none yet), it would otherwise read and sort
   * every due row to take the first few.
   */
  async function leaseDueInOneStatement(request: ClaimRequest): Promise<Leased> {
    const { owner, leaseMs, now, limit, perConfig, inFlight, perCompany = Number.MAX_SAFE_INTEGER, inFlightByCompany = new Map<number, number>() } = request;
    const free = [...inFlight].map(([cfg, n]) => ({ cfg, n: Math.max(0, perConfig - n) }));
    const companyFree = [...inFlightByCompany].map(([company, n]) => ({ company, n: Math.max(0, perCompany - n) }));
    const claimed = await driver.transaction(
      (tx) => tx.all(claimStatement, [now, json(free), windowOf(limit, perConfig), perConfig, limit, owner, now + leaseMs, json(companyFree), perCompany]),
      { indexScans: true },
    );
    const configs = new Map<string, StoredConfig>();
    const points = new Map<string, string[]>();
    for (const row of claimed) {
      const cfg = String(row.webhook_config_id);
      if (!configs.has(cfg)) configs.set(cfg, toConfig({ ...row, id: cfg }));
      const its = row.points as string[];
      if (its.length > 0) points.set(String(row.id), its);
    }
    return { claimed, configs, points };
  }

  return {
    async ingest(points, now) {
      for (let attempt = 1; ; attempt++) {
        try {
          const queued = await ingestOnce(points, now);
          if (queued > 0) announce();
          return { queued };
        } catch (error) {
          // A configuration deleted between routing and insert: route again, without it.
          if (driver.failureOf(error) !== 'foreign-key' || attempt >= ingestRetries) throw error;
        }
      }
    },

    async formBatches({ maxPoints, lingerMs, now }) {
      const groups = await driver.all(
        `SELECT webhook_config_id AS cfg, gateway_id AS g, measurement AS m, COUNT(*) AS n, MIN(accepted_at) AS oldest
         FROM delivery_points WHERE delivery_id IS NULL GROUP BY webhook_config_id, gateway_id, measurement`,
      );
      // Full batches at once; what is left once it has waited long enough.
      const batches: { id: string; cfg: string; g: string; m: string; k: number }[] = [];
      let nextAt: number | undefined;
      for (const group of groups) {
        const lingered = Number(group.oldest) + lingerMs <= now;
        const count = lingered ? Math.ceil(Number(group.n) / maxPoints) : Math.floor(Number(group.n) / maxPoints);
        if (count === 0) nextAt = Math.min(nextAt ?? Infinity, Number(group.oldest) + lingerMs);
        for (let k = 0; k < count; k++) batches.push({ id: randomUUID(), cfg: String(group.cfg), g: String(group.g), m: String(group.m), k });
      }
      if (batches.length === 0) return { formed: 0, nextAt };
      const planned = json(batches);
      const ids = json(batches.map(({ id }) => ({ id })));
      const formed = await driver.transaction(async (tx) => {
        await tx.run(
          `INSERT INTO deliveries (id, webhook_config_id, mode, gateway_id, measurement, state, attempts, next_attempt_at, accepted_at, created_at)
           SELECT b.id, b.cfg, 'Batch', b.g, b.m, 'queued', 0, $2, $2, $2 FROM ${jsonRows('$1', 'b', batchInput)}`,
          [planned, now],
        );
        if (isPostgres) {
          // In one statement: the waiting points of those groups in order, the k-th run of maxPoints
          // into the group's k-th batch; points another deliverer is taking are passed over (a batch
          // left with none is removed below).
          await tx.run(
            `WITH waiting AS (
               SELECT p.seq, p.webhook_config_id, p.gateway_id, p.measurement FROM delivery_points p
               WHERE p.delivery_id IS NULL AND (p.webhook_config_id, p.gateway_id, p.measurement) IN (SELECT b.cfg, b.g, b.m FROM ${jsonRows('$1', 'b', batchInput)})${skipLocked('p')}
             ), numbered AS (
               SELECT seq, webhook_config_id AS cfg, gateway_id AS g, measurement AS m,
                 (ROW_NUMBER() OVER (PARTITION BY webhook_config_id, gateway_id, measurement ORDER BY seq) - 1) / $2 AS k
               FROM waiting
             )
             UPDATE delivery_points SET delivery_id = b.id FROM numbered n JOIN ${jsonRows('$1', 'b', batchInput)} ON b.cfg = n.cfg AND b.g = n.g AND b.m = n.m AND b.k = n.k
             WHERE delivery_points.seq = n.seq`,
            [planned, maxPoints],
          );
        } else {
          // In process, a prepared statement a batch is cheaper than joining the plan's JSON to every point.
          for (const b of batches) {
            await tx.run(
              `UPDATE delivery_points SET delivery_id = $1 WHERE seq IN (
                 SELECT seq FROM delivery_points WHERE delivery_id IS NULL AND webhook_config_id = $2 AND gateway_id = $3 AND measurement = $4
                 ORDER BY seq LIMIT $5)`,
              [b.id, b.cfg, b.g, b.m, maxPoints],
            );
          }
        }
        const empty = await tx.run(
          `DELETE FROM deliveries WHERE ${idIn('id', '$1')} AND NOT EXISTS (SELECT 1 FROM delivery_points p WHERE p.delivery_id = deliveries.id)`,
          [ids],
        );
        await tx.run(
          `UPDATE deliveries SET accepted_at = (SELECT MIN(p.accepted_at) FROM delivery_points p WHERE p.delivery_id = deliveries.id) WHERE ${idIn('id', '$1')}`,
          [ids],
        );
        if (empty < batches.length) await notifyOthers(tx);
        return batches.length - empty;
      });
      if (formed > 0) announce();
      return { formed, nextAt };
    },

    async claim(request) {
      if (request.limit <= 0) return [];
      const { claimed, configs, points } = isPostgres ? await leaseDueInOneStatement(request) : await leaseDueInTransaction(request);
      // RETURNING follows no order: the earliest due first, and in creation order among equals.
      claimed.sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at) || Number(a.position) - Number(b.position));
      const result: ClaimedDelivery[] = [];
      for (const row of claimed) {
        const config = configs.get(String(row.webhook_config_id));
        const its = points.get(String(row.id));
        // Deleted (its configuration) or emptied (an unlink) since the claim: nothing to send; the settlement will not find it.
        if (!config || !its) continue;
        result.push({
          id: String(row.id),
          config,
          mode: row.mode === 'Batch' ? 'Batch' : 'Realtime',
          gatewayId: String(row.gateway_id),
          measurement: String(row.measurement),
          points: its,
          attempts: Number(row.attempts),
          acceptedAt: Number(row.accepted_at),
        });
      }
      return result;
    },

    renewLeases: (owner, ids, until) =>
      driver.run(
        { name: 'webhook_renew_leases', text: `UPDATE deliveries SET lease_until = $1 WHERE ${idIn('id', '$3')} AND lease_owner = $2 AND state = 'queued'` },
        [until, owner, json(ids.map((id) => ({ id })))],
      ),

    async settle(owner, settlements, now) {
      if (settlements.length === 0) return new Set();
      const rows = settlements.map((s) => ({
        id: s.id,
        state: s.outcome === 'retrying' ? 'queued' : s.outcome,
        next: s.nextAttemptAt ?? null,
        attempt: s.attempt,
        outcome: s.outcome,
        status: s.status,
        // What an endpoint answered, or the network said: anything may be in it.
        error: s.error === null ? null : storableText(s.error),
        body: storableText(s.responseBody),
        started: s.startedAt,
        duration: s.durationMs,
        points: s.pointCount,
      }));
      if (isPostgres) {
        const input = json(rows);
        const settled = await driver.all(
          {
            name: 'webhook_settle',
            text: `WITH s AS (${settleUpdate(jsonRows('$1', 'x', settleInput))} RETURNING deliveries.id, deliveries.webhook_config_id)
             ${insertAttempts(`${jsonRows('$1', 'x', settleInput)} JOIN s ON s.id = x.id`)} RETURNING delivery_id`,
          },
          [input, owner, now],
        );
        return new Set(settled.map((row) => String(row.delivery_id)));
      }
      // In process, prepared statements a row at a time are cheaper than a JSON parameter read back
      // column by column (and joined to itself).
      return driver.transaction(async (tx) => {
        const settled = new Set<string>();
        for (const x of rows) {
          const held = await tx.one(
            `UPDATE deliveries SET state = $1, attempts = attempts + 1, next_attempt_at = COALESCE($2, next_attempt_at), settled_at = $3,
               lease_owner = NULL, lease_until = NULL
             WHERE id = $4 AND lease_owner = $5 AND state = 'queued' RETURNING webhook_config_id`,
            [x.state, x.next, x.state === 'queued' ? null : now, x.id, owner],
          );
          if (!held) continue;
          await tx.run(
            `INSERT INTO delivery_attempts
               (delivery_id, webhook_config_id, attempt, outcome, response_status, error, response_body, started_at, duration_ms, point_count)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
            [x.id, String(held.webhook_config_id), x.attempt, x.outcome, x.status, x.error, x.body, x.started, x.duration, x.points],
          );
          settled.add(x.id);
        }
        return settled;
      });
    },

    release: (owner) => driver.run(`UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1 AND state = 'queued'`, [owner]),

    async nextDueAt() {
      const row = await driver.one(
        `SELECT MIN(CASE WHEN lease_until IS NOT NULL AND lease_until > next_attempt_at THEN lease_until ELSE next_attempt_at END) AS at
         FROM deliveries WHERE state = 'queued'`,
      );
      return numberOrUndefined(row?.at);
    },

    async pageAttempts(configId, filter, { limit, after }) {
      const values: SqlValue[] = [configId, after ?? Number.MAX_SAFE_INTEGER, limit + 1];
      if (filter.outcome) values.push(filter.outcome);
      const rows = await driver.all(
        `SELECT seq, delivery_id, attempt, outcome, response_status, error, response_body, started_at, duration_ms, point_count
         FROM delivery_attempts WHERE webhook_config_id = $1 AND seq < $2${filter.outcome ? ' AND outcome = $4' : ''}
         ORDER BY seq DESC LIMIT $3`,
        values,
      );
      const items = rows.slice(0, limit);
      return { items: items.map(toAttempt), next: rows.length > limit ? Number(items.at(-1)?.seq) : undefined };
    },

    async resend(configId, deliveryId, now) {
      const result = await driver.transaction(async (tx) => {
        // Locked: a concurrent resend of the same delivery waits, then finds this one's.
        const old = await tx.one(
          `SELECT state, mode, gateway_id, measurement FROM deliveries WHERE id = $1 AND webhook_config_id = $2${driver.dialect.forUpdate}`,
          [deliveryId, configId],
        );
        if (!old) return 'not-found' as const;
        if (old.state === 'queued') return 'not-settled' as const;
        if (old.state === 'delivered') return 'delivered' as const;
        if (await tx.one(`SELECT id FROM deliveries WHERE resend_of = $1 AND state = 'queued'`, [deliveryId])) return 'resend-queued' as const;
        const id = randomUUID();
        await tx.run(
          `INSERT INTO deliveries (id, webhook_config_id, mode, gateway_id, measurement, state, attempts, next_attempt_at, accepted_at, created_at, resend_of)
           VALUES ($1, $2, $3, $4, $5, 'queued', 0, $6, $6, $6, $7)`,
          [id, configId, String(old.mode), String(old.gateway_id), String(old.measurement), now, deliveryId],
        );
        // An unlink took the device's points with it: only points of devices still linked are there to copy.
        const copied = await tx.run(
          `INSERT INTO delivery_points (delivery_id, webhook_config_id, device_id, gateway_id, measurement, point, accepted_at)
           SELECT $1, webhook_config_id, device_id, gateway_id, measurement, point, $2 FROM delivery_points WHERE delivery_id = $3 ORDER BY seq`,
          [id, now, deliveryId],
        );
        if (copied === 0) {
          await tx.run('DELETE FROM deliveries WHERE id = $1', [id]);
          return 'unlinked' as const;
        }
        await notifyOthers(tx);
        return { resent: id };
      });
      if (typeof result === 'object') announce();
      return result;
    },

    prune: (before, limit) =>
      driver.run(`DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE state <> 'queued' AND settled_at < $1 LIMIT $2)`, [before, limit]),

    async stats() {
      const [queued, gathering] = await Promise.all([
        driver.one(`SELECT COUNT(*) AS n, MIN(accepted_at) AS oldest FROM deliveries WHERE state = 'queued'`),
        driver.one(`SELECT COUNT(*) AS n, MIN(accepted_at) AS oldest FROM delivery_points WHERE delivery_id IS NULL`),
      ]);
      const oldest = [numberOrUndefined(queued?.oldest), numberOrUndefined(gathering?.oldest)].filter((at) => at !== undefined);
      return {
        queued: Number(queued?.n ?? 0),
        gathering: Number(gathering?.n ?? 0),
        oldestAcceptedAt: oldest.length > 0 ? Math.min(...oldest) : undefined,
      };
    },

    onWork(listener) {
      work.on('work', listener);
      return () => work.off('work', listener);
    },
  };
}

function toAttempt(row: SqlRow): AttemptRecord {
  return {
    deliveryId: String(row.delivery_id),
    attempt: Number(row.attempt),
    outcome: row.outcome as AttemptOutcomeName,
    responseStatus: numberOrUndefined(row.response_status) ?? null,
    error: typeof row.error === 'string' ? row.error : null,
    responseBody: typeof row.response_body === 'string' ? row.response_body : null,
    startedAt: new Date(Number(row.started_at)).toISOString(),
    durationMs: Number(row.duration_ms),
    pointCount: Number(row.point_count),
  };
}

/** What an unlink does in its transaction once the link is gone (its points went with it): a queued delivery left with no point goes too. */
export async function dropEmptiedDeliveries(tx: SqlQueryable, webhookConfigId: string): Promise<void> {
  await tx.run(
    `DELETE FROM deliveries WHERE webhook_config_id = $1 AND state = 'queued'
       AND NOT EXISTS (SELECT 1 FROM delivery_points p WHERE p.delivery_id = deliveries.id)`,
    [webhookConfigId],
  );
}
