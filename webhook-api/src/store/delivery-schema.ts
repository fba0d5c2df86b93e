// The delivery queue's tables, one migration per dialect (the same shape; SQLite's rowid where
// PostgreSQL has an identity column). Times are epoch milliseconds, so both dialects compare them
// as numbers.
//
// - deliveries: one row per request to make (a Realtime point, or a Batch of points), queued until
//   it is delivered, dropped (4xx, a refused target) or failed (out of attempts or age). A deliverer
//   holds a queued row while it works on it with a lease (lease_owner, lease_until).
// - delivery_points: the points of each delivery; a Batch point waits here with no delivery until
//   its batch is formed. A row per (configuration, point), referring to its device link, so a point
//   cannot be queued for a link an unlink has removed (ingest routes again), and an unlink removes
//   the device's points from everything still queued.
// - delivery_attempts: the attempt log the API shows, newest first.

const tables = (pk: string, seq: string, real: string, dueOrder: string) => `
   CREATE TABLE deliveries (
     id TEXT PRIMARY KEY,${seq}
     webhook_config_id TEXT NOT NULL REFERENCES webhook_configs (id) ON DELETE CASCADE,
     mode TEXT NOT NULL,
     gateway_id TEXT NOT NULL,
     measurement TEXT NOT NULL,
     state TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at BIGINT NOT NULL,
     lease_owner TEXT,
     lease_until BIGINT,
     accepted_at BIGINT NOT NULL,
     created_at BIGINT NOT NULL,
     settled_at BIGINT,
     resend_of TEXT
   );
   CREATE INDEX deliveries_due ON deliveries (${dueOrder}) WHERE state = 'queued';
   CREATE INDEX deliveries_settled ON deliveries (settled_at) WHERE state <> 'queued';
   CREATE INDEX deliveries_config ON deliveries (webhook_config_id);
   CREATE TABLE delivery_points (
     ${pk},
     delivery_id TEXT REFERENCES deliveries (id) ON DELETE CASCADE,
     -- Its configuration through its link: a deleted configuration takes its links, and they their points.
     webhook_config_id TEXT NOT NULL,
     device_id BIGINT NOT NULL,
     gateway_id TEXT NOT NULL,
     measurement TEXT NOT NULL,
     point TEXT NOT NULL,
     accepted_at BIGINT NOT NULL,
     FOREIGN KEY (webhook_config_id, device_id) REFERENCES device_links (webhook_config_id, device_id) ON DELETE CASCADE
   );
   CREATE INDEX delivery_points_delivery ON delivery_points (delivery_id);
   CREATE INDEX delivery_points_device ON delivery_points (webhook_config_id, device_id);
   CREATE INDEX delivery_points_gathering ON delivery_points (webhook_config_id, gateway_id, measurement) WHERE delivery_id IS NULL;
   CREATE TABLE delivery_attempts (
     ${pk},
     delivery_id TEXT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
     webhook_config_id TEXT NOT NULL,
     attempt INTEGER NOT NULL,
     outcome TEXT NOT NULL,
     response_status INTEGER,
     error TEXT,
     response_body TEXT,
     started_at BIGINT NOT NULL,
     duration_ms ${real} NOT NULL,
     point_count INTEGER NOT NULL
   );
   CREATE INDEX delivery_attempts_config ON delivery_attempts (webhook_config_id, outcome);
   CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id);`;

/** SQLite: creation order is the rowid (`seq INTEGER PRIMARY KEY` names it; deliveries read it as rowid, the dialect's sequence); an index ends in it, so the due index serves the claim's order. */
export const sqliteDeliveryMigration = tables('seq INTEGER PRIMARY KEY', '', 'REAL', 'next_attempt_at');

/** PostgreSQL: identity columns. */
export const postgresDeliveryMigration = tables(
  'seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
  '\n     seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,',
  'DOUBLE PRECISION',
  // The claim's order whole, so a claim reads its window from the index instead of sorting the queue.
  'next_attempt_at, seq',
);
