// The delivery queue on PostgreSQL: any number of processes share it; new work is announced to the
// others by NOTIFY and heard by LISTEN.
import type { PostgresDriver } from '../../store/postgres/postgres-driver.ts';
import type { SqlDriver } from '../../store/sql-driver.ts';
import { defaultBatchRules, type BatchRules } from '../batch-fill.ts';
import type { DeliveryQueue } from '../delivery-queue.ts';
import type { QueueDependencies } from '../queue-dependencies.ts';
import { createSqlDeliveryQueue } from '../sql-delivery-queue.ts';
import { createWorkSignal } from '../work-signal.ts';
import { claim, claimIn } from './claim.ts';
import { lockOpenBatches } from './open-batches.ts';
import { settle, settleIn } from './settle.ts';
import { listenForWork, notifyOthers } from './work-notifications.ts';

export interface PostgresQueueOptions {
  /** How ingest makes batches. */
  readonly batch?: BatchRules;
  /**
   * The deliverer's connections (deliverer-connection.ts): claims, settlements, leases and pruning
   * run there, each statement on its own; `driver` when not given, each claim then a transaction
   * that sets the planner as those sessions are set.
   */
  readonly delivererDriver?: SqlDriver;
}

export function createPostgresDeliveryQueue(driver: PostgresDriver, options: PostgresQueueOptions = {}): DeliveryQueue {
  const own = options.delivererDriver;
  const deliverer: SqlDriver = own ?? {
    ...driver,
    // Without sessions of its own, a claim's statements run in a transaction whose planner walks the indexes.
    one: (sql, values) => driver.transaction((tx) => tx.one(sql, values), { indexScans: true }),
    all: (sql, values) => driver.transaction((tx) => tx.all(sql, values), { indexScans: true }),
  };
  const deps: QueueDependencies = {
    driver,
    delivererDriver: own ?? driver,
    signal: createWorkSignal(),
    tellOthers: notifyOthers,
    batches: { rules: options.batch ?? defaultBatchRules, lockOpen: lockOpenBatches },
  };
  return createSqlDeliveryQueue(deps, {
    claim: claim(deliverer),
    settle: settle(deps.delivererDriver),
    // Each statement commits on its own: a settlement stands whether or not the claim after it does.
    settleAndClaim: async (settlements, request) => ({
      settled: settlements.length === 0 ? new Set<string>() : await settleIn(deps.delivererDriver, request.owner, settlements, request.now),
      claimed: await claimIn(deliverer, request),
    }),
    onWorkElsewhere: listenForWork(driver),
  });
}
