// What the one SQL store needs from a database: statements with `$1`-style parameters, rows as
// plain objects, transactions, and failures sorted into the few kinds the store answers for.
// Implemented for node:sqlite (sqlite-driver.ts) and pg (postgres-driver.ts).

export type SqlValue = string | number | boolean | null;
export type SqlRow = Readonly<Record<string, unknown>>;

/**
 * The failures the store turns into answers; an unavailable database is thrown as StoreUnavailableError.
 * 'conflict': a deadlock or a serialization failure, the transaction rolled back whole (it may run again).
 */
export type SqlFailure = 'unique' | 'foreign-key' | 'conflict' | 'unavailable';

/**
 * A statement kept prepared on each connection under its name, so PostgreSQL parses it once and
 * may keep its plan (SQLite keeps every statement prepared): for the deliverer's statements, made
 * thousands of times a second, whose planning cost as much as their execution.
 */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

/** A statement's text, or a named statement. */
export type SqlStatement = string | NamedStatement;

export interface SqlQueryable {
  one(sql: SqlStatement, values?: readonly SqlValue[]): Promise<SqlRow | undefined>;
  all(sql: SqlStatement, values?: readonly SqlValue[]): Promise<SqlRow[]>;
  /** Runs a write; the number of rows it changed. */
  run(sql: SqlStatement, values?: readonly SqlValue[]): Promise<number>;
  /** Runs a script of statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

export interface SqlTransaction extends SqlQueryable {
  /**
   * Holds `key` until the transaction ends, so transactions taking the same key run one at a time:
   * an advisory transaction lock on PostgreSQL; nothing on SQLite, whose transactions are serialized.
   */
  lock(key: string): Promise<void>;
}

/**
 * Where the two SQL dialects' syntax differs in statements that are otherwise the same. An operation
 * whose algorithm differs by dialect has a file of its own in each dialect's folder instead.
 */
export interface SqlDialect {
  /** A column that grows with each insert: creation order for paging (never a timestamp). */
  readonly sequence: string;
  /** Appended to a SELECT that locks the row it reads until the transaction ends. */
  readonly forUpdate: string;
  /**
   * A FROM item named `alias` reading the rows of a JSON array parameter (`$n`, the array as JSON
   * text) with the given columns: how one statement takes many rows in either dialect.
   */
  readonly jsonRows: (parameter: string, alias: string, columns: Readonly<Record<string, JsonColumnType>>) => string;
  /**
   * A condition that `column` is one of the `id`s of a JSON array parameter (`[{ "id": ... }]`),
   * written so the planner looks the ids up in an index on `column` rather than scanning the table
   * (PostgreSQL cannot tell how many rows a JSON parameter holds, and guesses a hash join).
   */
  readonly idIn: (column: string, parameter: string) => string;
  /** The text between the first and the second `.` of `column` (a stored secret's key id: `v1.<keyId>.<iv>...`). */
  readonly secondDotField: (column: string) => string;
  /** Whether a WITH may hold an INSERT or UPDATE (PostgreSQL; not SQLite): several tables written in one round trip. */
  readonly writableCtes: boolean;
}

/** The SQL type of a column read from a JSON row. */
export type JsonColumnType = 'text' | 'bigint' | 'double precision';

export interface TransactionOptions {
  /**
   * The planner walks indexes in this transaction, never a bitmap or sequential scan (PostgreSQL;
   * SQLite plans from its indexes alone): for statements that take the first few rows in an
   * index's order, which statistics taken while the table was small, or none yet, would have the
   * planner read and sort whole.
   */
  readonly indexScans?: boolean;
}

export interface SqlDriver extends SqlQueryable {
  readonly dialect: SqlDialect;
  /** Runs `work` in a transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlTransaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Calls `onNotify` on each notification on `channel` from any process (PostgreSQL's LISTEN), and
   * once more after a lost connection is back, for what it may have missed. Absent on SQLite, which
   * has no other processes to hear from. Resolves once listening; the function it gives stops it.
   */
  listen?(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /**
   * A number that changes whenever another connection (another thread or process) commits to the
   * database, read without a query of any table: SQLite's PRAGMA data_version. Absent where no such
   * signal is free (PostgreSQL), and nothing may then be cached across statements.
   */
  dataVersion?(): number;
  /** The kind of a failure the driver threw, when the store answers for it. */
  failureOf(error: unknown): SqlFailure | undefined;
  close(): Promise<void>;
}
