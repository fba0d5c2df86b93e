// PostgreSQL's open batches at ingest, where ingests and deliverers run side by side: first the
// links and configurations the points refer to, shared (KEY SHARE, in one order), so an unlink or a
// deletion waits for this ingest or has happened before it, and never holds a row this ingest then
// waits for (which would deadlock on the batch's lock); then each group's transaction-long advisory
// lock, in one order, so the ingests of a group take turns and each sees the batch the one before
// it opened; then the open batches, locked (a deliverer claiming one passes it over, or has closed
// it and this ingest opens another).
import { groupKey, openBatchOf, type OpenBatch } from '../batch-fill.ts';
import type { OpenBatchLock } from '../routing.ts';

const linksStatement = {
  name: 'webhook_batch_links',
  text: `SELECT 1 FROM device_links l JOIN webhook_configs c ON c.id = l.webhook_config_id
     WHERE (l.webhook_config_id, l.device_id) IN (SELECT x.cfg, x.d FROM json_to_recordset($1::json) AS x (cfg text, d bigint))
     ORDER BY l.webhook_config_id, l.device_id FOR KEY SHARE OF l, c`,
};

const groupLocksStatement = {
  name: 'webhook_batch_group_locks',
  text: `SELECT pg_advisory_xact_lock(hashtextextended('webhook batch ' || x.k, 0))
     FROM (SELECT k FROM json_array_elements_text($1::json) WITH ORDINALITY AS a (k, n) ORDER BY n) x`,
};

const openStatement = {
  name: 'webhook_open_batches',
  text: `SELECT id, webhook_config_id, gateway_id, measurement, point_count, trace_context FROM deliveries
     WHERE batch_open AND (webhook_config_id, gateway_id, measurement) IN (SELECT x.cfg, x.g, x.m FROM json_to_recordset($1::json) AS x (cfg text, g text, m text))
     ORDER BY webhook_config_id, gateway_id, measurement FOR UPDATE`,
};

export const lockOpenBatches: OpenBatchLock = async (tx, groups, links) => {
  await tx.all(linksStatement, [JSON.stringify(links)]);
  const keys = groups.map(({ cfg, g, m }) => groupKey(cfg, g, m)).sort();
  await tx.all(groupLocksStatement, [JSON.stringify(keys)]);
  const rows = await tx.all(openStatement, [JSON.stringify(groups.map(({ cfg, g, m }) => ({ cfg, g, m })))]);
  const found = new Map<string, OpenBatch>();
  for (const row of rows) found.set(groupKey(String(row.webhook_config_id), String(row.gateway_id), String(row.measurement)), openBatchOf(row));
  return found;
};
