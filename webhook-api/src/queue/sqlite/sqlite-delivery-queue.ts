// The delivery queue on SQLite: one process, one writer, so nobody else is told of new work.
import type { SqlDriver } from '../../store/sql-driver.ts';
import type { DeliveryQueue } from '../delivery-queue.ts';
import type { QueueDependencies } from '../queue-dependencies.ts';
import { createSqlDeliveryQueue } from '../sql-delivery-queue.ts';
import { createWorkSignal } from '../work-signal.ts';
import { claim } from './claim.ts';
import { formBatches } from './form-batches.ts';
import { settle } from './settle.ts';

export function createSqliteDeliveryQueue(driver: SqlDriver): DeliveryQueue {
  const deps: QueueDependencies = { driver, signal: createWorkSignal(), tellOthers: () => Promise.resolve() };
  return createSqlDeliveryQueue(deps, { claim: claim(driver), settle: settle(driver), formBatches: formBatches(deps) });
}
