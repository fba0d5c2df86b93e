// The whole schema on PostgreSQL, in one script (nothing was deployed before it, so there is no
// history to replay). Creation order is one sequence shared by configurations, links and scopes, and
// an identity column in the queue's tables, never a timestamp. What each table holds is said in
// sqlite-schema.ts; the two describe the same shape.

export const postgresSchema = `
  CREATE SEQUENCE webhook_api_creation_order;

  CREATE TABLE webhook_configs (
    id TEXT PRIMARY KEY,
    company_id BIGINT NOT NULL,
    name TEXT NOT NULL,
    url TEXT NOT NULL,
    method TEXT NOT NULL,
    delivery_mode TEXT NOT NULL,
    auth_type TEXT NOT NULL,
    auth_payload_encrypted TEXT,
    custom_headers TEXT,
    include_metadata_headers BOOLEAN NOT NULL,
    include_retry_header BOOLEAN NOT NULL,
    signing_secret_encrypted TEXT NOT NULL,
    previous_signing_secret_encrypted TEXT,
    previous_signing_secret_until BIGINT,
    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    seq BIGINT NOT NULL DEFAULT nextval('webhook_api_creation_order')
  );
  CREATE INDEX webhook_configs_company ON webhook_configs (company_id, seq);

  CREATE TABLE device_links (
    webhook_config_id TEXT NOT NULL REFERENCES webhook_configs (id) ON DELETE CASCADE,
    device_id BIGINT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    seq BIGINT NOT NULL DEFAULT nextval('webhook_api_creation_order'),
    PRIMARY KEY (webhook_config_id, device_id)
  );
  CREATE INDEX device_links_device ON device_links (device_id);
  CREATE INDEX device_links_config ON device_links (webhook_config_id, seq);

  CREATE TABLE scopes (
    id TEXT PRIMARY KEY,
    webhook_config_id TEXT NOT NULL,
    device_id BIGINT NOT NULL,
    scope_level TEXT NOT NULL,
    connection_tag TEXT,
    measurement TEXT,
    enabled BOOLEAN NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    seq BIGINT NOT NULL DEFAULT nextval('webhook_api_creation_order'),
    FOREIGN KEY (webhook_config_id, device_id) REFERENCES device_links (webhook_config_id, device_id) ON DELETE CASCADE
  );
  CREATE UNIQUE INDEX scopes_identical ON scopes (webhook_config_id, device_id, scope_level, COALESCE(connection_tag, ''), COALESCE(measurement, ''));
  CREATE INDEX scopes_link ON scopes (webhook_config_id, device_id, seq);

  CREATE TABLE company_config_counts (
    company_id BIGINT PRIMARY KEY,
    configs BIGINT NOT NULL
  );

  CREATE TABLE deliveries (
    id TEXT PRIMARY KEY,
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
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
  -- The claim's order whole, so a claim reads its window from the index instead of sorting the queue.
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at, seq) WHERE state = 'queued';
  CREATE INDEX deliveries_settled ON deliveries (settled_at) WHERE state <> 'queued';
  CREATE INDEX deliveries_config ON deliveries (webhook_config_id);

  CREATE TABLE delivery_points (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id TEXT REFERENCES deliveries (id) ON DELETE CASCADE,
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
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id TEXT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    webhook_config_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    response_status INTEGER,
    error TEXT,
    response_body TEXT,
    started_at BIGINT NOT NULL,
    duration_ms DOUBLE PRECISION NOT NULL,
    point_count INTEGER NOT NULL
  );
  CREATE INDEX delivery_attempts_config ON delivery_attempts (webhook_config_id, outcome);
  CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id);
`;
