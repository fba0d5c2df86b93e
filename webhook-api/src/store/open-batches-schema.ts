// Schema version 3: a Batch point joins its group's open batch as ingest queues it, rather than
// waiting without a delivery for a deliverer to form batches (which updated every point's row).
//
// - deliveries.point_count: how many points an open batch holds, kept by ingest under the batch's
//   lock; deliveries.batch_open: whether points may still join it. One open batch per
//   (configuration, gateway, measurement) at most (deliveries_open_batch, unique). It is queued
//   like any delivery, due when its linger ends (next_attempt_at); it closes when full (due at
//   once) or when a deliverer claims it.
// - deliveries.trace_context: for a batch, the `traceparent` of each ingest whose points it
//   carries (distinct, space-separated, a bounded number), for the attempt span's links.
// - Points left waiting by version 2 go into one batch per group, closed and due at once (the
//   batch size is a setting the schema does not know, so a group's waiting points go together).
//   Nothing is left without a delivery afterwards: the index of waiting points goes.

const legacyBatches = (newId: string, open: string, closed: string) => `
  INSERT INTO deliveries (id, webhook_id, webhook_config_id, mode, gateway_id, measurement, state, attempts, next_attempt_at, accepted_at, created_at, point_count, batch_open)
    SELECT g.id, 'msg_' || g.id, g.cfg, 'Batch', g.gw, g.m, 'queued', 0, g.oldest, g.oldest, g.oldest, g.n, ${open}
    FROM (SELECT ${newId} AS id, webhook_config_id AS cfg, gateway_id AS gw, measurement AS m, MIN(accepted_at) AS oldest, COUNT(*) AS n
          FROM delivery_points WHERE delivery_id IS NULL GROUP BY webhook_config_id, gateway_id, measurement) g;
  UPDATE delivery_points SET delivery_id = (
    SELECT d.id FROM deliveries d WHERE d.batch_open = ${open} AND d.webhook_config_id = delivery_points.webhook_config_id
      AND d.gateway_id = delivery_points.gateway_id AND d.measurement = delivery_points.measurement)
  WHERE delivery_id IS NULL;
  UPDATE deliveries SET batch_open = ${closed} WHERE batch_open = ${open};
  DROP INDEX delivery_points_gathering;
`;

export const openBatchesSqlite = `
  ALTER TABLE deliveries ADD COLUMN point_count INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE deliveries ADD COLUMN batch_open INTEGER NOT NULL DEFAULT 0;
  CREATE UNIQUE INDEX deliveries_open_batch ON deliveries (webhook_config_id, gateway_id, measurement) WHERE batch_open = 1;
  ${legacyBatches('lower(hex(randomblob(16)))', '1', '0')}
`;

export const openBatchesPostgres = `
  ALTER TABLE deliveries ADD COLUMN point_count INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE deliveries ADD COLUMN batch_open BOOLEAN NOT NULL DEFAULT false;
  CREATE UNIQUE INDEX deliveries_open_batch ON deliveries (webhook_config_id, gateway_id, measurement) WHERE batch_open;
  ${legacyBatches('gen_random_uuid()::text', 'true', 'false')}
`;
