// The whole schema on SQLite, in one script (nothing was deployed before it, so there is no history
// to replay). Creation order is the rowid: an index on a parent alone ends in it, so it serves pages
// in order. Times of the delivery queue are epoch milliseconds, compared as numbers.
//
// - webhook_configs, device_links, scopes: the configurations, their links and the links' scopes;
//   company_config_counts: how many configurations each company holds (the limit's count). A
//   configuration's signing secret (and, for a day after a rotation, the one it replaced) is stored
//   encrypted like its credentials.
// - deliveries: one row per request to make (a Realtime point, or a Batch of points), queued until
//   it is delivered, dropped (4xx, a refused target) or failed (out of attempts or age). A deliverer
//   holds a queued row while it works on it with a lease (lease_owner, lease_until).
// - delivery_points: the points of each delivery; a Batch point waits here with no delivery until
//   its batch is formed. A row per (configuration, point), referring to its device link, so a point
//   cannot be queued for a link an unlink has removed, and an unlink removes the device's points
//   from everything still queued.
// - delivery_attempts: the attempt log, newest first.

export const sqliteSchema = `
  CREATE TABLE webhook_configs (
    id TEXT PRIMARY KEY,
    company_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    url TEXT NOT NULL,
    method TEXT NOT NULL,
    delivery_mode TEXT NOT NULL,
    auth_type TEXT NOT NULL,
    auth_payload_encrypted TEXT,
    custom_headers TEXT,
    include_metadata_headers INTEGER NOT NULL,
    include_retry_header INTEGER NOT NULL,
    signing_secret_encrypted TEXT NOT NULL,
    previous_signing_secret_encrypted TEXT,
    previous_signing_secret_until BIGINT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  );
  CREATE INDEX webhook_configs_company ON webhook_configs (company_id);

  CREATE TABLE device_links (
    webhook_config_id TEXT NOT NULL REFERENCES webhook_configs (id) ON DELETE CASCADE,
    device_id INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (webhook_config_id, device_id)
  );
  CREATE INDEX device_links_device ON device_links (device_id);
  CREATE INDEX device_links_config ON device_links (webhook_config_id);

  CREATE TABLE scopes (
    id TEXT PRIMARY KEY,
    webhook_config_id TEXT NOT NULL,
    device_id INTEGER NOT NULL,
    scope_level TEXT NOT NULL,
    connection_tag TEXT,
    measurement TEXT,
    enabled INTEGER NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    FOREIGN KEY (webhook_config_id, device_id) REFERENCES device_links (webhook_config_id, device_id) ON DELETE CASCADE
  );
  CREATE UNIQUE INDEX scopes_identical ON scopes (webhook_config_id, device_id, scope_level, COALESCE(connection_tag, ''), COALESCE(measurement, ''));
  CREATE INDEX scopes_link ON scopes (webhook_config_id, device_id);

  CREATE TABLE company_config_counts (
    company_id BIGINT PRIMARY KEY,
    configs BIGINT NOT NULL
  );

  CREATE TABLE deliveries (
    id TEXT PRIMARY KEY,
    -- The Standard Webhooks message id: the delivery's own, or the one it was resent from.
    webhook_id TEXT NOT NULL,
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
  -- Ends in the rowid, so the due index serves the claim's order.
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE state = 'queued';
  CREATE INDEX deliveries_settled ON deliveries (settled_at) WHERE state <> 'queued';
  CREATE INDEX deliveries_config ON deliveries (webhook_config_id);

  CREATE TABLE delivery_points (
    seq INTEGER PRIMARY KEY,
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
    seq INTEGER PRIMARY KEY,
    delivery_id TEXT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    webhook_config_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    response_status INTEGER,
    error TEXT,
    response_body TEXT,
    started_at BIGINT NOT NULL,
    duration_ms REAL NOT NULL,
    point_count INTEGER NOT NULL
  );
  CREATE INDEX delivery_attempts_config ON delivery_attempts (webhook_config_id, outcome);
  CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id);
`;
