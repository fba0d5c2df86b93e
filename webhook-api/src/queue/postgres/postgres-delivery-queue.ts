// The delivery queue on PostgreSQL: any number of processes share it; new work is announced to the
// others by NOTIFY and heard by LISTEN.
import type { PostgresDriver } from '../../store/postgres/postgres-driver.ts';
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
import { listenForWork, notifyOthers } from './work-notifications.ts';

export function createPostgresDeliveryQueue(driver: PostgresDriver): DeliveryQueue {
  const deps: QueueDependencies = { driver, signal: createWorkSignal(), tellOthers: notifyOthers };
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
    onWorkElsewhere: listenForWork(driver),
  };
}
