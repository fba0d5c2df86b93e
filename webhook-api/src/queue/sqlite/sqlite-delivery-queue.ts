// The delivery queue on SQLite: one process, one writer, so nobody else is told of new work.
import type { SqlDriver } from '../../store/sql-driver.ts';
import type { DeliveryQueue } from '../delivery-queue.ts';
import type { QueueDependencies } from '../queue-dependencies.ts';
import { createSqlDeliveryQueue } from '../sql-delivery-queue.ts';
import { createWorkSignal, type WorkSignal } from '../work-signal.ts';
import { claim } from './claim.ts';
import { formBatches } from './form-batches.ts';
import { settle } from './settle.ts';

/** `signal` wakes this process's deliverer; the off-loop queue shares it with the in-loop one. */
export function createSqliteDeliveryQueue(driver: SqlDriver, signal: WorkSignal = createWorkSignal()): DeliveryQueue {
  const deps: QueueDependencies = { driver, signal, tellOthers: () => Promise.resolve() };
  return createSqlDeliveryQueue(deps, { claim: claim(driver), settle: settle(driver), formBatches: formBatches(deps) });
}
