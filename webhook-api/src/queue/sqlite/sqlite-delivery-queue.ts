// The delivery queue on SQLite: one process, one writer, so nobody else is told of new work.
import type { SqlDriver } from '../../store/sql-driver.ts';
import { pageAttempts } from '../attempt-log.ts';
import type { DeliveryQueue } from '../delivery-queue.ts';
import { prune, stats } from '../housekeeping.ts';
import { ingest } from '../ingest.ts';
import { nextDueAt, releaseLeases, renewLeases } from '../leases.ts';
import type { QueueDependencies } from '../queue-dependencies.ts';
import { resend } from '../resend.ts';
import { createWorkSignal } from '../work-signal.ts';
import { claim } from './claim.ts';
import { formBatches } from './form-batches.ts';
import { settle } from './settle.ts';

export function createSqliteDeliveryQueue(driver: SqlDriver): DeliveryQueue {
  const deps: QueueDependencies = { driver, signal: createWorkSignal(), tellOthers: () => Promise.resolve() };
  return {
    ingest: ingest(deps),
    formBatches: formBatches(deps),
    claim: claim(driver),
    renewLeases: renewLeases(driver),
    settle: settle(driver),
    release: releaseLeases(driver),
    nextDueAt: nextDueAt(driver),
    pageAttempts: pageAttempts(driver),
    resend: resend(deps),
    prune: prune(driver),
    stats: stats(driver),
    onWork: deps.signal.onWork,
  };
}
