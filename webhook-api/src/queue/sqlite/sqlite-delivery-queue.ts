// The delivery queue on SQLite: one process, one writer, so nobody else is told of new work.
import type { SqlDriver } from '../../store/sql-driver.ts';
import { defaultBatchRules, type BatchRules } from '../batch-fill.ts';
import type { DeliveryQueue } from '../delivery-queue.ts';
import type { QueueDependencies } from '../queue-dependencies.ts';
import { createSqlDeliveryQueue } from '../sql-delivery-queue.ts';
import { createWorkSignal, type WorkSignal } from '../work-signal.ts';
import { claim, claimIn } from './claim.ts';
import { lockOpenBatches } from './open-batches.ts';
import { settle, settleIn } from './settle.ts';

export interface SqliteQueueOptions {
  /** Wakes this process's deliverer; the off-loop queue shares it with the in-loop one. */
  readonly signal?: WorkSignal;
  /** How ingest makes batches. */
  readonly batch?: BatchRules;
  /** The deliverer's claims, settlements and leases: the same connection without the spans of the traced driver (they run in no request's trace). */
  readonly delivererDriver?: SqlDriver;
}

export function createSqliteDeliveryQueue(driver: SqlDriver, options: SqliteQueueOptions = {}): DeliveryQueue {
  const deliverer = options.delivererDriver ?? driver;
  const deps: QueueDependencies = {
    driver,
    delivererDriver: deliverer,
    signal: options.signal ?? createWorkSignal(),
    tellOthers: () => Promise.resolve(),
    batches: { rules: options.batch ?? defaultBatchRules, lockOpen: lockOpenBatches },
  };
  return createSqlDeliveryQueue(deps, {
    claim: claim(deliverer),
    settle: settle(deliverer),
    settleAndClaim: (settlements, request) =>
      deliverer.transaction(async (tx) => ({ settled: await settleIn(tx, request.owner, settlements, request.now), claimed: await claimIn(tx, request) })),
  });
}
