// The SQL driver for PostgreSQL (pg): a pool with connect and query timeouts, so a dead or silent
// server fails a request within seconds; connection trouble is thrown as StoreUnavailableError.
import { listen } from '@platform/postgres/listen';
import pg from 'pg';
import type { SqlDriver, SqlFailure, SqlQueryable, SqlRow, SqlStatement, SqlValue } from '../sql-driver.ts';
import { StoreUnavailableError } from '../store-unavailable.ts';

const unavailableNodeCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** pg's own words for a connection that failed, timed out or is gone. */
const unavailableMessage =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|not queryable|timeout expired|Cannot use a pool after calling end/i;

/** Sorts a pg or socket error: SQLSTATE classes 08 and 53, 57P0x and 57014 (timeouts, shutdowns) are outages; 40P01 and 40001 conflicts. */
export function classifyPostgresError(error: unknown): SqlFailure | undefined {
  if (error instanceof AggregateError) return error.errors.some((e) => classifyPostgresError(e) === 'unavailable') ? 'unavailable' : undefined;
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code === '23505') return 'unique';
    if (code === '23503') return 'foreign-key';
    if (code === '40P01' || code === '40001') return 'conflict';
    if (code.startsWith('08') || code.startsWith('53') || code.startsWith('57P0') || code === '57014') return 'unavailable';
    if (unavailableNodeCodes.has(code)) return 'unavailable';
  }
  return unavailableMessage.test(error.message) ? 'unavailable' : undefined;
}

function rethrow(error: unknown): never {
  if (classifyPostgresError(error) === 'unavailable') throw new StoreUnavailableError('the PostgreSQL database is unavailable', { cause: error });
  throw error;
}

type TypeId = Parameters<typeof pg.types.getTypeParser>[0];
const { INT8, TIMESTAMPTZ } = pg.types.builtins;
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ) as (text: string) => Date;
/** int8 as a number (ids and counts stay below 2^53), timestamptz as ISO text like SQLite's. */
const types: pg.CustomTypesConfig = {
  getTypeParser: (oid: TypeId, format?: 'text' | 'binary'): unknown => {
    if (oid === INT8) return (text: string) => Number(text);
    if (oid === TIMESTAMPTZ) return (text: string) => parseTimestamptz(text).toISOString();
    return pg.types.getTypeParser(oid, format) as unknown;
  },
};

export interface PostgresDriverOptions {
  readonly maxConnections: number;
  readonly connectionTimeoutMs: number;
  readonly queryTimeoutMs: number;
  readonly onIdleConnectionError?: ((error: Error) => void) | undefined;
}

/** A driver on PostgreSQL, which can always hear from other processes. */
export type PostgresDriver = SqlDriver & Required<Pick<SqlDriver, 'listen'>>;

export function createPostgresDriver(connectionString: string, options: PostgresDriverOptions): PostgresDriver {
  const pool = new pg.Pool({
    connectionString,
    max: options.maxConnections,
    connectionTimeoutMillis: options.connectionTimeoutMs,
    statement_timeout: options.queryTimeoutMs,
    // The client gives up a little after the server would have, for a server that does not answer at all.
    query_timeout: options.queryTimeoutMs + 1_000,
    idle_in_transaction_session_timeout: options.queryTimeoutMs * 2,
    keepAlive: true,
    types,
  });
  pool.on('error', (error) => {
    options.onIdleConnectionError?.(error);
  });

  /** A pooled connection for `work`; dropped, not reused, when it failed with the database unreachable. */
  async function withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect().catch(rethrow);
    // A checked-out client has no listener: without one, a dropped connection would end the process.
    const ignore = () => undefined;
    client.on('error', ignore);
    try {
      const result = await work(client);
      client.removeListener('error', ignore);
      client.release();
      return result;
    } catch (error) {
      client.removeListener('error', ignore);
      client.release(classifyPostgresError(error) === 'unavailable' ? (error as Error) : undefined);
      return rethrow(error);
    }
  }

  /** pg's query: a named statement is parsed once per connection (and its plan may be kept). */
  const query = (sql: SqlStatement, values: readonly SqlValue[]): pg.QueryConfig<SqlValue[]> =>
    typeof sql === 'string' ? { text: sql, values: [...values] } : { name: sql.name, text: sql.text, values: [...values] };
  const on = (client: pg.PoolClient): SqlQueryable => ({
    one: async (sql, values = []) => (await client.query<SqlRow>(query(sql, values))).rows[0],
    all: async (sql, values = []) => (await client.query<SqlRow>(query(sql, values))).rows,
    run: async (sql, values = []) => (await client.query(query(sql, values))).rowCount ?? 0,
    exec: async (script) => {
      await client.query(script);
    },
  });

  return {
    dialect: {
      sequence: 'seq',
      forUpdate: ' FOR UPDATE',
      idIn: (column, parameter) => `${column} = ANY (ARRAY(SELECT x.id FROM json_to_recordset(${parameter}::json) AS x (id text)))`,
      secondDotField: (column) => `split_part(${column}, '.', 2)`,
      writableCtes: true,
      jsonRows: (parameter, alias, columns) =>
        `json_to_recordset(${parameter}::json) AS ${alias} (${Object.entries(columns)
          .map(([name, type]) => `${name} ${type}`)
          .join(', ')})`,
    },
    one: (sql, values) => withClient((client) => on(client).one(sql, values)),
    all: (sql, values) => withClient((client) => on(client).all(sql, values)),
    run: (sql, values) => withClient((client) => on(client).run(sql, values)),
    exec: (script) => withClient((client) => on(client).exec(script)),
    transaction: (work, options) =>
      withClient(async (client) => {
        // One round trip: BEGIN and the transaction's planner settings as one simple query.
        await client.query(options?.indexScans ? 'BEGIN; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = off; SET LOCAL jit = off' : 'BEGIN');
        try {
          const result = await work({
            ...on(client),
            lock: async (key) => {
              await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
            },
          });
          await client.query('COMMIT');
          return result;
        } catch (error) {
          // A connection that failed is dropped instead, and the server rolls back on its own.
          if (classifyPostgresError(error) !== 'unavailable') await client.query('ROLLBACK');
          throw error;
        }
      }),
    listen: (channel, onNotify) => listenOn(connectionString, channel, onNotify, options),
    failureOf: classifyPostgresError,
    close: () => pool.end(),
  };
}

/**
 * LISTEN on `channel` over a connection of its own (@platform/postgres), connecting again after any
 * failure; `onNotify` is called for each notification and after each (re)connection. Errors go to
 * `onIdleConnectionError`; the first connection's failure is also thrown, as StoreUnavailableError
 * when the database is unreachable.
 */
async function listenOn(connectionString: string, channel: string, onNotify: () => void, options: PostgresDriverOptions): Promise<() => Promise<void>> {
  const reportError = (error: Error | undefined) => {
    if (error) options.onIdleConnectionError?.(error);
  };
  return listen({
    connectionString,
    channel,
    connectionTimeoutMs: options.connectionTimeoutMs,
    onNotification: () => {
      onNotify();
    },
    onListening: onNotify,
    onConnectionLost: reportError,
  }).catch((error: unknown) => {
    if (error instanceof Error && !(error instanceof TypeError)) reportError(error);
    return rethrow(error);
  });
}
