// PostgreSQL's reading of the endpoint logs (endpoint-logs.ts), in one statement that commits on its
// own: the cursors this deliverer may hold (active, its own or free or lapsed, their endpoint
// sending; one another deliverer is taking, or an ingest is writing to, is passed over: SKIP
// LOCKED), each one's next points from the log index, at most its free slots, within the company's
// and the total; the cursors taken up to the last point read, and the ones it holds with nothing in
// flight and nothing left to read given back. Kept prepared on each connection.
import type { StoredConfig } from '../../store/records.ts';
import { toConfig } from '../../store/row-mapping.ts';
import type { SqlQueryable } from '../../store/sql-driver.ts';
import { leasedColumns } from '../claimed-deliveries.ts';
import type { ClaimRequest } from '../delivery-queue.ts';
import { giveBackCursors, type LogReads, type LogRoom } from '../endpoint-logs.ts';
import { configColumnsOf } from './claimed-configs.ts';

const statement = {
  name: 'webhook_read_logs',
  text: `WITH busy AS MATERIALIZED (SELECT * FROM json_to_recordset($1::json) AS b (cfg text, n bigint, cap bigint)),
   companies AS MATERIALIZED (SELECT * FROM json_to_recordset($2::json) AS g (company bigint, n bigint)),
   cand AS MATERIALIZED (
     SELECT k.webhook_config_id AS cfg, c.company_id AS company, k.lease_owner AS holder,
       CASE WHEN k.lease_owner = $3 THEN k.read_through ELSE 0 END AS after,
       COALESCE((SELECT b.n FROM busy b WHERE b.cfg = k.webhook_config_id), 0) AS busy,
       LEAST($4::bigint, COALESCE(c.rate_limit_per_second, $4::bigint), COALESCE((SELECT b.cap FROM busy b WHERE b.cfg = k.webhook_config_id), $4::bigint))
         - COALESCE((SELECT b.n FROM busy b WHERE b.cfg = k.webhook_config_id), 0) AS room
     FROM endpoint_cursors k JOIN webhook_configs c ON c.id = k.webhook_config_id
     WHERE k.active AND (k.lease_owner = $3 OR k.lease_owner IS NULL OR k.lease_until < $5::bigint)
       AND c.status = 'Active' AND (c.paused_until IS NULL OR c.paused_until <= $5::bigint)
     FOR UPDATE OF k SKIP LOCKED
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
   ), given_back AS (
     ${giveBackCursors(
       'seq',
       `FROM cand WHERE endpoint_cursors.webhook_config_id = cand.cfg AND cand.busy = 0 AND (cand.room > 0 OR cand.holder IS DISTINCT FROM $3)
         AND cand.cfg NOT IN (SELECT cfg FROM next)`,
     )}
   )
   SELECT ${leasedColumns('d', 'seq')}, (SELECT p.point FROM delivery_points p WHERE p.delivery_id = d.id) AS point, ${configColumnsOf('c')}
   FROM picked JOIN deliveries d ON d.id = picked.id JOIN webhook_configs c ON c.id = picked.cfg`,
};

export async function readLogsIn(db: SqlQueryable, request: ClaimRequest, room: LogRoom): Promise<LogReads> {
  const rows = await db.all(statement, [
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
  ]);
  const configs = new Map<string, StoredConfig>();
  const points = new Map<string, string[]>();
  for (const row of rows) {
    const cfg = String(row.webhook_config_id);
    if (!configs.has(cfg)) configs.set(cfg, toConfig({ ...row, id: cfg }));
    if (typeof row.point === 'string') points.set(String(row.id), [row.point]);
  }
  return { rows, configs, points };
}
