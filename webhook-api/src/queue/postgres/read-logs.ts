// PostgreSQL's reading of the endpoint logs (endpoint-logs.ts), in one statement that commits on its
// own: the cursors this deliverer holds and those it may take (free or lapsed, with points, their
// endpoint sending; a deliverer takes one at a time, which spreads endpoints over deliverers), passing over one that
// another deliverer is taking or an ingest is writing to (SKIP LOCKED); each one's next points from
// the log index, at most its free slots (the room it is given: a round of them ahead where the
// queue reads ahead), within the company's and the total; the cursors taken up
// to the last point read. It names the cursors it holds with nothing in flight and nothing read,
// for the claim to give back. Kept prepared on each connection.
import type { StoredConfig } from '../../store/records.ts';
import { toConfig } from '../../store/row-mapping.ts';
import type { SqlQueryable } from '../../store/sql-driver.ts';
import { leasedColumns } from '../claimed-deliveries.ts';
import type { ClaimRequest } from '../delivery-queue.ts';
import type { LogReads, LogRoom } from '../endpoint-logs.ts';
import { configColumnsOf } from './claimed-configs.ts';

/** NULLs for the columns of a point, on a row naming an idle cursor instead. */
const nulls = [...leasedColumns('d', 'seq').split(', '), 'point', ...configColumnsOf('c').split(', ')].map(() => 'NULL').join(', ');

const statement = {
  name: 'webhook_read_logs',
  text: `WITH busy AS MATERIALIZED (SELECT * FROM json_to_recordset($1::json) AS b (cfg text, n bigint, cap bigint)),
   companies AS MATERIALIZED (SELECT * FROM json_to_recordset($2::json) AS g (company bigint, n bigint)),
   mine AS (
     SELECT k.webhook_config_id AS cfg, k.read_through AS after FROM endpoint_cursors k WHERE k.lease_owner = $3 FOR UPDATE OF k SKIP LOCKED
   ), fresh AS (
     SELECT k.webhook_config_id AS cfg, 0::bigint AS after FROM endpoint_cursors k
     WHERE k.active AND (k.lease_owner IS NULL OR k.lease_until < $5::bigint) AND k.lease_owner IS DISTINCT FROM $3
       AND k.webhook_config_id IN (SELECT id FROM webhook_configs WHERE status = 'Active' AND (paused_until IS NULL OR paused_until <= $5::bigint))
       -- A probe of the log index per cursor (as a semi-join the planner would read every logged point).
       AND (SELECT 1 FROM deliveries d WHERE d.webhook_config_id = k.webhook_config_id AND d.state = 'logged' LIMIT 1) IS NOT NULL
     LIMIT $9::bigint FOR UPDATE OF k SKIP LOCKED
   ), cand AS MATERIALIZED (
     SELECT x.cfg, x.after, c.company_id AS company,
       COALESCE((SELECT b.n FROM busy b WHERE b.cfg = x.cfg), 0) AS busy,
       LEAST($4::bigint, COALESCE(c.rate_limit_per_second, $4::bigint), COALESCE((SELECT b.cap FROM busy b WHERE b.cfg = x.cfg), $4::bigint))
         - COALESCE((SELECT b.n FROM busy b WHERE b.cfg = x.cfg), 0) AS room
     FROM (SELECT * FROM mine UNION ALL SELECT * FROM fresh) x JOIN webhook_configs c ON c.id = x.cfg
     WHERE c.status = 'Active' AND (c.paused_until IS NULL OR c.paused_until <= $5::bigint)
   ), next AS (
     SELECT cand.cfg, cand.company, d.seq, d.id FROM cand CROSS JOIN LATERAL (
       SELECT d.seq, d.id FROM deliveries d WHERE d.webhook_config_id = cand.cfg AND d.state = 'logged' AND d.seq > cand.after
       ORDER BY d.seq LIMIT GREATEST(cand.room, 0)) d
   ), picked AS (
     SELECT n.cfg, n.seq, n.id FROM (SELECT next.*, ROW_NUMBER() OVER (PARTITION BY next.company ORDER BY next.seq) AS crn FROM next) n
     WHERE n.crn <= $6::bigint - COALESCE((SELECT g.n FROM companies g WHERE g.company = n.company), 0)
     ORDER BY n.seq LIMIT $7::bigint
   ), reads AS (
     SELECT cfg, MAX(seq) AS last FROM picked GROUP BY cfg
   ), taken AS (
     UPDATE endpoint_cursors k SET lease_owner = $3, lease_until = $8::bigint, read_through = reads.last FROM reads WHERE k.webhook_config_id = reads.cfg
   )
   SELECT ${leasedColumns('d', 'seq')}, (SELECT p.point FROM delivery_points p WHERE p.delivery_id = d.id) AS point, ${configColumnsOf('c')}, NULL AS idle
   FROM picked JOIN deliveries d ON d.id = picked.id JOIN webhook_configs c ON c.id = picked.cfg
   UNION ALL
   SELECT ${nulls}, mine.cfg FROM mine WHERE mine.cfg NOT IN (SELECT cfg FROM next) AND COALESCE((SELECT b.n FROM busy b WHERE b.cfg = mine.cfg), 0) = 0`,
};

export async function readLogsIn(db: SqlQueryable, request: ClaimRequest, room: LogRoom): Promise<LogReads & { readonly idle: string[] }> {
  const answered = await db.all(statement, [
    JSON.stringify(
      [...new Set([...room.inFlight.keys(), ...(room.perConfigCaps?.keys() ?? [])])].map((cfg) => ({
        cfg,
        n: room.inFlight.get(cfg) ?? 0,
        cap: room.perConfigCaps?.get(cfg) ?? null,
      })),
    ),
    JSON.stringify([...room.inFlightByCompany].map(([company, n]) => ({ company, n }))),
    request.owner,
    room.perConfig,
    request.now,
    room.perCompany,
    room.limit,
    request.now + request.leaseMs,
    room.newCursors ?? null,
  ]);
  const rows = answered.filter((row) => row.idle === null);
  const configs = new Map<string, StoredConfig>();
  const points = new Map<string, string[]>();
  for (const row of rows) {
    const cfg = String(row.webhook_config_id);
    if (!configs.has(cfg)) configs.set(cfg, toConfig({ ...row, id: cfg }));
    if (typeof row.point === 'string') points.set(String(row.id), [row.point]);
  }
  return { rows, configs, points, idle: answered.filter((row) => row.idle !== null).map((row) => String(row.idle)) };
}
