// The delivery queue on PostgreSQL: any number of processes share it; new work is announced to the
// others by NOTIFY and heard by LISTEN.
import type { PostgresDriver } from '../../store/postgres/postgres-driver.ts';
import { defaultBatchRules, type BatchRules } from '../batch-fill.ts';
import type { DeliveryQueue } from '../delivery-queue.ts';
import type { QueueDependencies } from '../queue-dependencies.ts';
import { createSqlDeliveryQueue } from '../sql-delivery-queue.ts';
import { createWorkSignal } from '../work-signal.ts';
import { claim, claimIn } from './claim.ts';
import { lockOpenBatches } from './open-batches.ts';
import { settle, settleIn } from './settle.ts';
import { listenForWork, notifyOthers } from './work-notifications.ts';

export function createPostgresDeliveryQueue(driver: PostgresDriver, batch: BatchRules = defaultBatchRules): DeliveryQueue {
  const deps: QueueDependencies = {
    driver,
    signal: createWorkSignal(),
    tellOthers: notifyOthers,
    batches: { rules: batch, lockOpen: lockOpenBatches },
  };
  return createSqlDeliveryQueue(deps, {
    claim: claim(driver),
    settle: settle(driver),
    settleAndClaim: (settlements, request) =>
      driver.transaction(
        async (tx) => ({
          settled: settlements.length === 0 ? new Set<string>() : await settleIn(tx, request.owner, settlements, request.now),
          claimed: await claimIn(tx, request),
        }),
        { indexScans: true },
      ),
    onWorkElsewhere: listenForWork(driver),
  });
}
