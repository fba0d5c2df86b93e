// Schema version 11 on SQLite, 12 on PostgreSQL: each endpoint's Realtime points as a log read in
// order under one lease per endpoint, instead of a lease and a state change per point.
//
// - deliveries.state 'logged': a Realtime point of a configuration with ordering None, from ingest
//   until its first attempt ends: then it is delivered, dropped or failed, or queued for its retry,
//   like any delivery. A logged row is never leased by itself: the deliverer holding its endpoint's
//   cursor sends it. deliveries_logged is each endpoint's log in order: what a cursor reads, and
//   only what is still to be attempted (an attempt takes the row out of the index).
// - endpoint_cursors: a row per endpoint that has had logged points. active: the endpoint may have
//   logged points (set by ingest under the endpoint log's lock, which also orders ingests of one
//   endpoint, so positions commit in order and a reader never passes over one committed later; on
//   PostgreSQL the usual ingest is one statement, which sets it whatever it read, its snapshot being
//   older than the lock: queue/logged-ingest.ts); cleared when a deliverer gives the endpoint back
//   with none left. lease_owner, lease_until: the one deliverer that
//   sends the endpoint's logged points now; read_through: the last position it has read (those up to
//   it are in its hands). A new holder reads from the start of the log: what an earlier holder had
//   read and not attempted is still there.
export const endpointLogSchema = (truth: string) => `
  CREATE TABLE endpoint_cursors (
    webhook_config_id TEXT PRIMARY KEY REFERENCES webhook_configs (id) ON DELETE CASCADE,
    active BOOLEAN NOT NULL DEFAULT ${truth},
    lease_owner TEXT,
    lease_until BIGINT,
    read_through BIGINT NOT NULL DEFAULT 0
  );
  CREATE INDEX endpoint_cursors_active ON endpoint_cursors (webhook_config_id) WHERE active;
  CREATE INDEX endpoint_cursors_holder ON endpoint_cursors (lease_owner) WHERE lease_owner IS NOT NULL;
`;

/** SQLite's index on the configuration ends in the rowid, the log's order, by itself. */
export const endpointLogSqlite = `${endpointLogSchema('1')}
  CREATE INDEX deliveries_logged ON deliveries (webhook_config_id) WHERE state = 'logged';
`;
export const endpointLogPostgres = `${endpointLogSchema('true')}
  CREATE INDEX deliveries_logged ON deliveries (webhook_config_id, seq) WHERE state = 'logged';
`;
