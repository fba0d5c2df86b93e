// PostgreSQL's claim (a round trip per statement, other deliverers alongside): one statement takes a
// window of due rows from the index, passing over those another deliverer holds (SKIP LOCKED) and
// those of a configuration or company at its limit, keeps at most the free slots of each, leases
// them (closing a batch), and answers them with their configurations and Realtime points; a second
// reads the points of the batches it took. It runs where the planner walks the indexes
// (deliverer-connection.ts): with statistics taken while the queue was short (or none yet), it
// would otherwise read and sort every due row to take the first few. Kept prepared on each
// connection.
import type { StoredConfig } from '../../store/records.ts';
import { toConfig } from '../../store/row-mapping.ts';
import { configColumnsOf } from './claimed-configs.ts';
import type { SqlDriver, SqlQueryable } from '../../store/sql-driver.ts';
import { claimWindow, configRoom, leasedColumns, toClaimedDeliveries } from '../claimed-deliveries.ts';
import type { ClaimedDelivery, ClaimRequest, DeliveryQueue } from '../delivery-queue.ts';
import { afterLogReads, giveBackIdle, hasLogRoom, loggedDeliveries, logRoomOf } from '../endpoint-logs.ts';
import { readLogsIn } from './read-logs.ts';
import { lockStreams } from './stream-locks.ts';

const configFree = `json_to_recordset($2::json) AS f (cfg text, n bigint)`;
const companiesFree = `json_to_recordset($8::json) AS g (company bigint, n bigint)`;
const statement = {
  name: 'webhook_claim',
  text: `WITH due AS (
     SELECT d.id, d.webhook_config_id, c.company_id, c.rate_limit_per_second AS rate, d.next_attempt_at, d.seq AS position
     FROM deliveries d JOIN webhook_configs c ON c.id = d.webhook_config_id
     WHERE d.state = 'queued' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until < $1) AND c.status = 'Active'
       AND (c.paused_until IS NULL OR c.paused_until <= $1)
       AND d.webhook_config_id NOT IN (SELECT f.cfg FROM ${configFree} WHERE f.n = 0)
       AND c.company_id NOT IN (SELECT g.company FROM ${companiesFree} WHERE g.n = 0)
     ORDER BY d.next_attempt_at, d.seq LIMIT $3 FOR UPDATE OF d SKIP LOCKED
   ), per_config AS (
     SELECT due.*, ROW_NUMBER() OVER (PARTITION BY webhook_config_id ORDER BY next_attempt_at, position) AS rn FROM due
   ), per_company AS (
     SELECT r.*, ROW_NUMBER() OVER (PARTITION BY company_id ORDER BY next_attempt_at, position) AS crn
     FROM per_config r LEFT JOIN ${configFree} ON f.cfg = r.webhook_config_id WHERE r.rn <= COALESCE(f.n, LEAST($4, COALESCE(r.rate, $4)))
   ), picked AS (
     SELECT r.id FROM per_company r LEFT JOIN ${companiesFree} ON g.company = r.company_id
     WHERE r.crn <= COALESCE(g.n, $9) ORDER BY r.next_attempt_at, r.position LIMIT $5
   )
   UPDATE deliveries SET lease_owner = $6, lease_until = $7, batch_open = false FROM webhook_configs c
   WHERE deliveries.id IN (SELECT id FROM picked) AND c.id = deliveries.webhook_config_id
   RETURNING ${leasedColumns('deliveries', 'seq')}, ${configColumnsOf('c')},
     CASE WHEN deliveries.mode = 'Realtime' THEN ARRAY(SELECT p.point FROM delivery_points p WHERE p.delivery_id = deliveries.id ORDER BY p.seq) END AS points`,
};

/**
 * A claimed batch's points, read by a statement of their own once it is leased and closed: an
 * ingest that joined it may have committed after the claim's snapshot (the claim then leased the
 * row as that ingest left it), and its points are seen only by a later statement. A Realtime
 * delivery's point came in the same transaction as its row, so the claim's own snapshot has it.
 */
const batchPoints = {
  name: 'webhook_claimed_batch_points',
  text: `SELECT delivery_id, point FROM delivery_points
     WHERE delivery_id = ANY (ARRAY(SELECT x.id FROM json_to_recordset($1::json) AS x (id text))) ORDER BY seq`,
};

/**
 * Claims on `db` what `request` asks for: the lease in one statement, which commits on its own; a
 * batch's points read after it. `db` plans with index scans only (deliverer-connection.ts).
 */
export async function claimIn(db: SqlDriver, request: ClaimRequest): Promise<ClaimedDelivery[]> {
  let fromLogs: ClaimedDelivery[] = [];
  if (hasLogRoom(request)) {
    const reads = await readLogsIn(db, request, logRoomOf(request));
    fromLogs = loggedDeliveries(reads);
    await giveBackIdle(db, lockStreams, request.owner, reads.idle);
  }
  const read = fromLogs.map(({ config }) => ({ cfg: config.id, companyId: config.companyId }));
  return [...fromLogs, ...(await claimRowsIn(db, afterLogReads(request, read)))];
}

async function claimRowsIn(tx: SqlQueryable, request: ClaimRequest): Promise<ClaimedDelivery[]> {
  const { owner, leaseMs, now, limit, perConfig, perCompany = Number.MAX_SAFE_INTEGER, inFlightByCompany = new Map<number, number>() } = request;
  if (limit <= 0) return [];
  const free = configRoom(request);
  const companyFree = [...inFlightByCompany].map(([company, n]) => ({ company, n: Math.max(0, perCompany - n) }));
  const claimed = await tx.all(statement, [
    now,
    JSON.stringify(free),
    claimWindow(limit, perConfig),
    perConfig,
    limit,
    owner,
    now + leaseMs,
    JSON.stringify(companyFree),
    perCompany,
  ]);
  const points = new Map<string, string[]>();
  const batches = claimed.filter((row) => row.mode === 'Batch').map((row) => ({ id: String(row.id) }));
  if (batches.length > 0) {
    for (const row of await tx.all(batchPoints, [JSON.stringify(batches)])) {
      const id = String(row.delivery_id);
      const its = points.get(id) ?? [];
      its.push(String(row.point));
      points.set(id, its);
    }
  }
  const configs = new Map<string, StoredConfig>();
  for (const row of claimed) {
    const cfg = String(row.webhook_config_id);
    if (!configs.has(cfg)) configs.set(cfg, toConfig({ ...row, id: cfg }));
    const its = row.points as string[] | null;
    if (its && its.length > 0) points.set(String(row.id), its);
  }
  return toClaimedDeliveries({ claimed, configs, points });
}

export const claim =
  (driver: SqlDriver): DeliveryQueue['claim'] =>
  async (request) =>
    claimIn(driver, request);
