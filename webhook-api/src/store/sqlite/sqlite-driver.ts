// The SQL driver for node:sqlite: one synchronous connection, so statements and transactions take
// turns through a mutex (an awaiting transaction would otherwise take in other requests' statements).
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { AsyncMutex } from './async-mutex.ts';
import type { SqlDriver, SqlFailure, SqlQueryable, SqlRow, SqlStatement, SqlValue } from '../sql-driver.ts';
import { StoreUnavailableError } from '../store-unavailable.ts';

const unavailableCodes = new Set([
  5, // SQLITE_BUSY: another process holds the lock past busy_timeout
  6, // SQLITE_LOCKED
  10, // SQLITE_IOERR
  13, // SQLITE_FULL
  14, // SQLITE_CANTOPEN
]);

/** Sorts a node:sqlite error by its (extended) result code. */
export function classifySqliteError(error: unknown): SqlFailure | undefined {
  const code = (error as { errcode?: unknown } | undefined)?.errcode;
  if (typeof code !== 'number') return undefined;
  if (code === 2067 || code === 1555) return 'unique'; // SQLITE_CONSTRAINT_UNIQUE, _PRIMARYKEY
  if (code === 787) return 'foreign-key'; // SQLITE_CONSTRAINT_FOREIGNKEY
  return unavailableCodes.has(code & 0xff) ? 'unavailable' : undefined;
}

/** Rethrows a failure, as StoreUnavailableError when the database could not do its work. */
function rethrow(error: unknown): never {
  if (classifySqliteError(error) === 'unavailable') throw new StoreUnavailableError('the SQLite database is unavailable', { cause: error });
  throw error;
}

const bind = (values: readonly SqlValue[]): SQLInputValue[] => values.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));

export function createSqliteDriver(db: DatabaseSync): SqlDriver {
  const statements = new Map<string, StatementSync>();
  const prepare = (sql: SqlStatement) => {
    const text = typeof sql === 'string' ? sql : sql.text;
    let statement = statements.get(text);
    if (!statement) {
      // `$1` as SQLite's numbered `?1`, so both dialects share the statements' text.
      statement = db.prepare(text.replace(/\$(\d+)/g, '?$1'));
      statements.set(text, statement);
    }
    return statement;
  };
  const attempt = <T>(work: () => T): T => {
    try {
      return work();
    } catch (error) {
      return rethrow(error);
    }
  };
  // Runs at once on the connection: for the transaction holding the mutex.
  const direct: SqlQueryable = {
    // all(), not get(): get() steps once and leaves an INSERT ... RETURNING unfinished until the
    // statement is reset, which keeps the write open (and made a transaction's commit 2x slower).
    one: (sql, values = []) => Promise.resolve(attempt(() => prepare(sql).all(...bind(values))[0] as SqlRow | undefined)),
    all: (sql, values = []) => Promise.resolve(attempt(() => prepare(sql).all(...bind(values)) as SqlRow[])),
    run: (sql, values = []) => Promise.resolve(attempt(() => Number(prepare(sql).run(...bind(values)).changes))),
    exec: (script) => {
      attempt(() => {
        db.exec(script);
      });
      return Promise.resolve();
    },
  };
  const mutex = new AsyncMutex();
  const dataVersion = db.prepare('PRAGMA data_version');

  return {
    dialect: {
      sequence: 'rowid',
      forUpdate: '',
      // json_each gives the array's elements; ->> reads a key as an SQL value (JSON numbers as numbers).
      idIn: (column, parameter) => `${column} IN (SELECT value ->> 'id' FROM json_each(${parameter}))`,
      // SQLite has no split_part: what follows the first dot, up to the next one.
      secondDotField: (column) => `substr(${column}, instr(${column}, '.') + 1, instr(substr(${column}, instr(${column}, '.') + 1), '.') - 1)`,
      writableCtes: false,
      jsonRows: (parameter, alias, columns) =>
        `(SELECT ${Object.keys(columns)
          .map((name) => `value ->> '${name}' AS ${name}`)
          .join(', ')} FROM json_each(${parameter})) ${alias}`,
    },
    one: (sql, values) => mutex.runNow(() => direct.one(sql, values)),
    all: (sql, values) => mutex.runNow(() => direct.all(sql, values)),
    run: (sql, values) => mutex.runNow(() => direct.run(sql, values)),
    exec: (script) => mutex.run(() => direct.exec(script)),
    transaction(work) {
      return mutex.run(async () => {
        // IMMEDIATE takes the write lock now, so another process cannot slip in between our read and write.
        attempt(() => {
          db.exec('BEGIN IMMEDIATE');
        });
        try {
          const result = await work({ ...direct, lock: () => Promise.resolve() });
          attempt(() => {
            db.exec('COMMIT');
          });
          return result;
        } catch (error) {
          if (db.isTransaction) db.exec('ROLLBACK');
          throw error;
        }
      });
    },
    // Outside the mutex: it changes nothing, and inside this connection's open transaction it still
    // tells whether another connection committed before it began (none can while it holds the lock).
    dataVersion: () => attempt(() => (dataVersion.get() as { data_version: number }).data_version),
    failureOf: classifySqliteError,
    close: () =>
      mutex.run(() => {
        db.close();
      }),
  };
}
