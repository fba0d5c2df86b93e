// What every operation of the queue is built on: the database, the signal that wakes this process's
// deliverer, and how the dialect tells other processes' deliverers (nothing on SQLite).
import type { SqlDriver, SqlQueryable } from '../store/sql-driver.ts';
import type { WorkSignal } from './work-signal.ts';

export interface QueueDependencies {
  readonly driver: SqlDriver;
  readonly signal: WorkSignal;
  /** Called in a transaction that queued work; sent when it commits. */
  readonly tellOthers: (tx: SqlQueryable) => Promise<void>;
}
