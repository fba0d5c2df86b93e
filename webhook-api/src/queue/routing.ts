// Ingest's routing, the same in both dialects: which configurations each point goes to, per the
// scopes as they are in this transaction (any enabled scope of the link that matches), and the rows
// that queue it: a delivery per (Realtime point, configuration), and a point row per pair (a Batch
// point waits with no delivery until its batch is formed).
import { randomUUID } from 'node:crypto';
import type { SqlDialect, SqlQueryable } from '../store/sql-driver.ts';
import { messageIdOf, type QueuedPoint } from './delivery-queue.ts';

const pointInput = { i: 'bigint', d: 'bigint', c: 'text', m: 'text' } as const;
const deliveryInput = { id: 'text', cfg: 'text', mode: 'text', g: 'text', m: 'text', at: 'bigint', t: 'text' } as const;
const pointRowInput = { did: 'text', cfg: 'text', d: 'bigint', g: 'text', m: 'text', p: 'text', at: 'bigint' } as const;

/** Routes `points` and inserts what they match in `tx`; the number of (point, configuration) pairs queued. */
export async function routeAndQueue(
  tx: SqlQueryable,
  { jsonRows }: SqlDialect,
  points: readonly QueuedPoint[],
  now: number,
  /** The ingest span's `traceparent`, kept with each delivery for its attempts' span links. */
  traceContext: string | null = null,
): Promise<number> {
  const routes = await tx.all(
    `SELECT DISTINCT p.i AS i, c.id AS cfg, c.delivery_mode AS mode
     FROM ${jsonRows('$1', 'p', pointInput)}
     JOIN device_links l ON l.device_id = p.d
     JOIN webhook_configs c ON c.id = l.webhook_config_id
     WHERE EXISTS (SELECT 1 FROM scopes s WHERE s.webhook_config_id = l.webhook_config_id AND s.device_id = l.device_id AND s.enabled
       AND (s.scope_level = 'Device' OR (s.connection_tag = p.c AND (s.scope_level = 'Connection' OR s.measurement = p.m))))`,
    [JSON.stringify(points.map((p, i) => ({ i, d: p.deviceId, c: p.connectionTag, m: p.measurement })))],
  );
  if (routes.length === 0) return 0;
  const deliveries: object[] = [];
  const rows: object[] = [];
  // In the order the points came, so a receiver sees them in that order when nothing is retried.
  routes.sort((a, b) => Number(a.i) - Number(b.i));
  for (const route of routes) {
    const point = points[Number(route.i)];
    if (!point) throw new Error('routing answered a point that was not sent');
    const cfg = String(route.cfg);
    const did = route.mode === 'Realtime' ? randomUUID() : null;
    if (did) deliveries.push({ id: did, cfg, mode: 'Realtime', g: point.gatewayId, m: point.measurement, at: now, t: traceContext });
    rows.push({ did, cfg, d: point.deviceId, g: point.gatewayId, m: point.measurement, p: point.point, at: now });
  }
  if (deliveries.length > 0) {
    await tx.run(
      `INSERT INTO deliveries (id, webhook_id, webhook_config_id, mode, gateway_id, measurement, state, attempts, next_attempt_at, accepted_at, created_at, trace_context)
       SELECT x.id, ${messageIdOf('x.id')}, x.cfg, x.mode, x.g, x.m, 'queued', 0, x.at, x.at, x.at, x.t FROM ${jsonRows('$1', 'x', deliveryInput)}`,
      [JSON.stringify(deliveries)],
    );
  }
  await tx.run(
    `INSERT INTO delivery_points (delivery_id, webhook_config_id, device_id, gateway_id, measurement, point, accepted_at)
     SELECT x.did, x.cfg, x.d, x.g, x.m, x.p, x.at FROM ${jsonRows('$1', 'x', pointRowInput)}`,
    [JSON.stringify(rows)],
  );
  return rows.length;
}
