// SQLite's reading of the endpoint logs (endpoint-logs.ts), in the claim's transaction: the cursors
// this deliverer holds and those it may take (free or lapsed, with points, their endpoint sending), each one's
// next points by rowid from the log index (at most its free slots), the oldest of them all taken
// within the company's and the total room, each cursor taken up to the last of its points taken,
// and the cursors with nothing in flight and nothing left to read given back.
import { configColumns, toConfig } from '../../store/row-mapping.ts';
import type { SqlQueryable, SqlRow } from '../../store/sql-driver.ts';
import { leasedColumns } from '../claimed-deliveries.ts';
import type { ClaimRequest } from '../delivery-queue.ts';
import { giveBackCursors, logReadSize, type LogReads, type LogRoom } from '../endpoint-logs.ts';
import { textsByLimit } from './literal-limit.ts';

const readLog = textsByLimit(
  (limit) => `SELECT ${leasedColumns('deliveries', 'rowid')}, (SELECT p.point FROM delivery_points p WHERE p.delivery_id = deliveries.id) AS point
  FROM deliveries WHERE webhook_config_id = $1 AND state = 'logged' AND rowid > $2 ORDER BY rowid ${limit}`,
);

// Those it holds, and those it may take (a deliverer takes one at a time: endpoints spread over
// deliverers), each with its configuration as it is now.
const cursorColumns = `k.webhook_config_id AS cfg, k.lease_owner AS holder, ${configColumns
  .split(', ')
  .map((column) => `c.${column}`)
  .join(', ')}`;
const readCursors = textsByLimit(
  (
    limit,
  ) => `SELECT ${cursorColumns}, k.read_through AS after FROM endpoint_cursors k JOIN webhook_configs c ON c.id = k.webhook_config_id WHERE k.lease_owner = $1
     UNION ALL
     SELECT * FROM (SELECT ${cursorColumns}, 0 AS after FROM endpoint_cursors k JOIN webhook_configs c ON c.id = k.webhook_config_id
       WHERE k.active AND (k.lease_owner IS NULL OR k.lease_until < $2) AND k.lease_owner IS NOT $1
         AND c.status = 'Active' AND (c.paused_until IS NULL OR c.paused_until <= $2)
         AND EXISTS (SELECT 1 FROM deliveries d WHERE d.webhook_config_id = k.webhook_config_id AND d.state = 'logged') ${limit})`,
);

export async function readLogsIn(tx: SqlQueryable, request: ClaimRequest, room: LogRoom): Promise<LogReads> {
  const { owner, now, leaseMs } = request;
  const reads: LogReads = { rows: [], configs: new Map(), points: new Map() };
  const cursors = await tx.all(readCursors(room.newCursors ?? -1), [owner, now]);
  const read: SqlRow[] = [];
  for (const cursor of cursors) {
    const cfg = String(cursor.cfg);
    const mine = cursor.holder === owner;
    if (mine && (cursor.status !== 'Active' || (cursor.paused_until !== null && Number(cursor.paused_until) > now))) {
      // Its endpoint does not send now: given back once nothing of it is in flight.
      if ((room.inFlight.get(cfg) ?? 0) === 0) await tx.run(giveBackCursors('rowid', 'WHERE webhook_config_id = $1'), [cfg]);
      continue;
    }
    const config = toConfig({ ...cursor, id: cfg });
    const after = mine ? Number(cursor.after) : 0;
    const size = logReadSize(room, config);
    const rows = size > 0 ? await tx.all(readLog(size), [cfg, after]) : [];
    if (rows.length > 0) {
      reads.configs.set(cfg, config);
      read.push(...rows);
    } else if (mine && size > 0 && (room.inFlight.get(cfg) ?? 0) === 0) {
      await tx.run(giveBackCursors('rowid', 'WHERE webhook_config_id = $1'), [cfg]);
    }
  }
  // The oldest first, within each company's room and the total.
  const byCompany = new Map<number, number>();
  const lastOf = new Map<string, number>();
  for (const row of read.sort((a, b) => Number(a.position) - Number(b.position))) {
    const cfg = String(row.webhook_config_id);
    const config = reads.configs.get(cfg);
    if (!config || reads.rows.length >= room.limit) continue;
    const ofCompany = (room.inFlightByCompany.get(config.companyId) ?? 0) + (byCompany.get(config.companyId) ?? 0);
    if (ofCompany >= room.perCompany) continue;
    byCompany.set(config.companyId, (byCompany.get(config.companyId) ?? 0) + 1);
    lastOf.set(cfg, Number(row.position));
    reads.rows.push(row);
    if (typeof row.point === 'string') reads.points.set(String(row.id), [row.point]);
  }
  for (const [cfg, last] of lastOf) {
    await tx.run('UPDATE endpoint_cursors SET lease_owner = $1, lease_until = $2, read_through = $3 WHERE webhook_config_id = $4', [
      owner,
      now + leaseMs,
      last,
      cfg,
    ]);
  }
  return reads;
}
