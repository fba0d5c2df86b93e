// SQLite's claim (in process, one writer): the next due rows from the index, those of a
// configuration at its limit passed over; the limits applied in code; the lease taken, and the
// configurations and points read, row by row with prepared statements (cheaper in process than a
// JSON parameter); one short transaction.
import type { StoredConfig } from '../../store/records.ts';
import { configColumns, toConfig } from '../../store/row-mapping.ts';
import type { SqlDriver, SqlQueryable, SqlRow } from '../../store/sql-driver.ts';
import { claimWindow, configCap, configRoom, leasedColumns, toClaimedDeliveries } from '../claimed-deliveries.ts';
import type { ClaimedDelivery, ClaimRequest, DeliveryQueue } from '../delivery-queue.ts';
import { afterLogReads, hasLogRoom, loggedDeliveries, logRoomOf } from '../endpoint-logs.ts';
import { textsByLimit } from './literal-limit.ts';
import { readLogsIn } from './read-logs.ts';

// By rowid, which the due rows give: no look-up in the id index. A Realtime delivery's one point
// comes back with it; a batch is closed as it is claimed (no point joins what is being sent), and
// its points are read after.
const leaseRealtime = `UPDATE deliveries SET lease_owner = $1, lease_until = $2 WHERE rowid = $3
  RETURNING ${leasedColumns('deliveries', 'rowid')}, (SELECT p.point FROM delivery_points p WHERE p.delivery_id = deliveries.id) AS point`;
const leaseBatch = `UPDATE deliveries SET lease_owner = $1, lease_until = $2, batch_open = 0 WHERE rowid = $3 RETURNING ${leasedColumns('deliveries', 'rowid')}`;

// Passed over: configurations at their limit, disabled ones, and ones paused by a 429 (each list read by its own index).
const dueRows = textsByLimit(
  (limit) => `SELECT rowid AS r, webhook_config_id, mode FROM deliveries
     WHERE state = 'queued' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
       AND webhook_config_id NOT IN (SELECT value ->> 'cfg' FROM json_each($2))
       AND webhook_config_id NOT IN (SELECT id FROM webhook_configs WHERE status <> 'Active')
       AND webhook_config_id NOT IN (SELECT id FROM webhook_configs WHERE paused_until > $1)
     ORDER BY next_attempt_at, rowid ${limit}`,
);

/** Claims in `tx` what `request` asks for: the endpoint logs' points first (sent at once), then due rows. */
export async function claimIn(tx: SqlQueryable, request: ClaimRequest): Promise<ClaimedDelivery[]> {
  const fromLogs = hasLogRoom(request) ? loggedDeliveries(await readLogsIn(tx, request, logRoomOf(request))) : [];
  return [
    ...fromLogs,
    ...(await claimRowsIn(
      tx,
      afterLogReads(
        request,
        fromLogs.map(({ config }) => ({ cfg: config.id, companyId: config.companyId })),
      ),
    )),
  ];
}

async function claimRowsIn(tx: SqlQueryable, request: ClaimRequest): Promise<ClaimedDelivery[]> {
  const { owner, leaseMs, now, limit, perConfig, inFlight, perCompany = Number.MAX_SAFE_INTEGER, inFlightByCompany = new Map<number, number>() } = request;
  if (limit <= 0) return [];
  const full = configRoom(request).filter(({ n }) => n === 0);
  const due = await tx.all(dueRows(claimWindow(limit, perConfig)), [now, JSON.stringify(full)]);
  const configs = new Map<string, StoredConfig>();
  const points = new Map<string, string[]>();
  const claimed: SqlRow[] = [];
  for (const cfg of new Set(due.map((row) => String(row.webhook_config_id)))) {
    const row = await tx.one(`SELECT ${configColumns} FROM webhook_configs WHERE id = $1`, [cfg]);
    if (row) configs.set(cfg, toConfig(row));
  }
  // At most `perConfig` of each configuration and `perCompany` of each company, with what is in
  // flight: one tenant's slow endpoints cannot take every slot.
  const byConfig = new Map(inFlight);
  const byCompany = new Map(inFlightByCompany);
  for (const row of due) {
    const config = configs.get(String(row.webhook_config_id));
    if (!config) continue;
    const ofConfig = byConfig.get(config.id) ?? 0;
    const ofCompany = byCompany.get(config.companyId) ?? 0;
    if (ofConfig >= Math.min(configCap(perConfig, config.rateLimitPerSecond), request.perConfigCaps?.get(config.id) ?? perConfig) || ofCompany >= perCompany)
      continue;
    byConfig.set(config.id, ofConfig + 1);
    byCompany.set(config.companyId, ofCompany + 1);
    const taken = await tx.one(row.mode === 'Batch' ? leaseBatch : leaseRealtime, [owner, now + leaseMs, Number(row.r)]);
    if (!taken) continue;
    claimed.push(taken);
    const id = String(taken.id);
    if (taken.mode === 'Batch') {
      const rows = await tx.all(`SELECT point FROM delivery_points WHERE delivery_id = $1 ORDER BY seq`, [id]);
      if (rows.length > 0)
        points.set(
          id,
          rows.map((p) => String(p.point)),
        );
    } else if (typeof taken.point === 'string') {
      points.set(id, [taken.point]);
    }
    if (claimed.length >= limit) break;
  }
  return toClaimedDeliveries({ claimed, configs, points });
}

export const claim =
  (driver: SqlDriver): DeliveryQueue['claim'] =>
  async (request) =>
    request.limit <= 0 && !hasLogRoom(request) ? [] : driver.transaction((tx) => claimIn(tx, request));
