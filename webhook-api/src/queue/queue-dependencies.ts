// What every operation of the queue is built on: the database (and the connections the deliverer's
// operations take), the signal that wakes this process's deliverer, how the dialect tells other processes' deliverers (nothing on SQLite), and how ingest
// makes batches (the rules, and the dialect's way to find and hold a group's open batch).
import type { SqlDriver, SqlQueryable } from '../store/sql-driver.ts';
import type { BatchRules } from './batch-fill.ts';
import type { EndpointHealthSignal } from './endpoint-health-signal.ts';
import type { HealthRules } from './endpoint-health.ts';
import type { StreamLock } from './streams.ts';
import type { InOneStatement } from './logged-ingest.ts';
import type { OpenBatchLock } from './routing.ts';
import type { WorkSignal } from './work-signal.ts';

export interface QueueDependencies {
  readonly driver: SqlDriver;
  /**
   * Where the deliverer's own operations run (claims, settlements, leases, pruning): on PostgreSQL a
   * pool of its own, whose sessions plan with index scans only; on SQLite the same driver.
   */
  readonly delivererDriver: SqlDriver;
  readonly signal: WorkSignal;
  /** Called in a transaction that queued work; sent when it commits. */
  readonly tellOthers: (tx: SqlQueryable) => Promise<void>;
  readonly batches: { readonly rules: BatchRules; readonly lockOpen: OpenBatchLock };
  /** When settlements disable an endpoint, and whom this process tells once one did. */
  readonly health: HealthRules;
  readonly endpoints: EndpointHealthSignal;
  /** How ordered streams are held by a transaction (PostgreSQL: advisory locks; SQLite: nothing, its transactions being serialized). */
  readonly lockStreams: StreamLock;
  /**
   * PostgreSQL's: lockStreams and tellOthers as parts of one statement, so an ingest of points that go
   * only to endpoint logs is that statement, committing on its own (routing.ts, queueLoggedOnly).
   */
  readonly inOneStatement?: InOneStatement;
}
