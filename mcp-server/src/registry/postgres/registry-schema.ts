// The registrations' table (and the spent request states') in PostgreSQL, in a schema of the gateway's own (mcp_registry), created
// when a replica starts if it is not there yet: idempotent, and one replica at a time, so replicas
// starting together do not race on the catalog. Expiry is a time of the database's (expires_at,
// compared to now()), never a replica's clock.
import type { Logger } from '@platform/tool-sdk';
import pg from 'pg';

/** A schema name the registry's statements may quote as they are: lower-case, digits and '_'. */
export const plainSchemaName = /^[a-z_][a-z0-9_]{0,40}$/;

export const defaultRegistrySchema = 'mcp_registry';

const schemaStatements = (schema: string) => `
  CREATE TABLE IF NOT EXISTS ${schema}.registrations (
    registration_id TEXT PRIMARY KEY,
    app_client_id TEXT NOT NULL,
    service_name TEXT NOT NULL,
    app_key TEXT NOT NULL,
    callback_address TEXT NOT NULL,
    granted_ttl_seconds INTEGER NOT NULL,
    -- What its tools take of the catalog (catalog-limits.ts), for the limits of every replica.
    bytes INTEGER NOT NULL,
    -- The app's newest token: the actor token of the token exchanges every replica makes for it.
    token TEXT NOT NULL,
    -- The service's ListTools answer as JSON, checked again by each replica as it reads it.
    tools TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    UNIQUE (app_client_id, service_name)
  );
  CREATE INDEX IF NOT EXISTS registrations_expiry ON ${schema}.registrations (expires_at);
  -- Since when the service (app and service name) has been registered without a gap, epoch ms by
  -- the database's time: of one app's services offering one name, the earliest keeps it. Added by
  -- a later release, so a table made before it gains the column here (its old rows, sealed before
  -- the row binding, do not open and are registered again).
  ALTER TABLE ${schema}.registrations ADD COLUMN IF NOT EXISTS since_ms BIGINT NOT NULL DEFAULT 0;
  -- The nonces of request states already answered (questions/postgres-spent-states.ts), until they expire.
  CREATE TABLE IF NOT EXISTS ${schema}.spent_request_states (
    nonce TEXT PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX IF NOT EXISTS spent_request_states_expiry ON ${schema}.spent_request_states (expires_at);
  -- The open MCP streams and 2025-11-25 sessions (kind) of every replica, so that a person's bounds hold
  -- across them (http/postgres-stream-ledger.ts). A row lives while its replica renews its lease; a
  -- replica that died leaves rows that lapse.
  CREATE TABLE IF NOT EXISTS ${schema}.open_streams (
    stream_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    caller_id TEXT NOT NULL,
    opened_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    lease_until TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX IF NOT EXISTS open_streams_caller ON ${schema}.open_streams (kind, caller_id, opened_at);
  -- MCP tasks (tasks/postgres-task-store.ts): one row a task, changed by compare-and-set on version.
  -- Times are epoch milliseconds of the replicas' clocks; content is sealed (the task's arguments,
  -- answers and result are its caller's alone), renewal a delegated token sealed to its task.
  CREATE TABLE IF NOT EXISTS ${schema}.tasks (
    task_id TEXT PRIMARY KEY,
    caller_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    status TEXT NOT NULL,
    status_message TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    ttl_ms BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    runner TEXT,
    runner_seen_at BIGINT NOT NULL,
    token_expires_at BIGINT NOT NULL,
    token_lifetime_ms BIGINT NOT NULL,
    renewal TEXT,
    polled_at BIGINT NOT NULL,
    content TEXT NOT NULL,
    version INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS tasks_open ON ${schema}.tasks (caller_id) WHERE status IN ('working', 'input_required');
  CREATE INDEX IF NOT EXISTS tasks_expiry ON ${schema}.tasks (expires_at);
`;

/** Creates what is missing, holding a lock of the schema's name so that one replica at a time does. */
export async function applyRegistrySchema(client: pg.ClientBase, schema: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${schema}.schema`]);
    // Created only when missing: a role that owns its schema, and has no right to create others, must get by.
    const { rowCount } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (rowCount === 0) await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(schemaStatements(schema));
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

export interface RegistryPoolOptions {
  readonly logger: Logger;
  readonly schema: string;
  /** How long a connection or a statement may take. */
  readonly timeoutMs: number;
  /** Connections at most. */
  readonly max: number;
  /** What the pool holds, as its messages name it: "the registrations", "the tasks". */
  readonly what: string;
  /** The function that opens the store, which a bad schema name is told against. */
  readonly opener: string;
}

/**
 * A pool on the gateway's schema, the schema made when missing: what every store of the registry's
 * schema opens. Rejects naming DATABASE_URL (never its value) when the database cannot be used.
 */
export async function openRegistryPool(connectionString: string, options: RegistryPoolOptions): Promise<pg.Pool> {
  const { logger, schema, timeoutMs, max, what } = options;
  if (!plainSchemaName.test(schema)) throw new TypeError(`${options.opener}: schema must be a plain name (got ${schema})`);
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + 1_000,
    idle_in_transaction_session_timeout: timeoutMs * 2,
    keepAlive: true,
  });
  // Without a listener, an idle connection that fails (a restart of the server) would end the process.
  pool.on('error', (error) => {
    logger.warn({ err: error }, `a connection to ${what}' database failed; the next query opens another`);
  });
  try {
    const client = await pool.connect();
    try {
      await applyRegistrySchema(client, schema);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new Error(`${what}' database (DATABASE_URL) cannot be used: ${(error as Error).message}`, { cause: error });
  }
  return pool;
}
