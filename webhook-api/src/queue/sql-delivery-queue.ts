// The delivery queue on a SQL database: the operations both dialects share, with the ones whose
// algorithm is the dialect's own (claim, settle, both in one transaction, hearing from other
// processes) given by its folder.
import { pageAttempts } from './attempt-log.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import { pageDeliveries } from './delivery-states.ts';
import { expireWaiting, prune, releaseHeadless, stats } from './housekeeping.ts';
import { ingest } from './ingest.ts';
import { pruneIngestKeys } from './ingest-keys.ts';
import { nextDueAt, releaseLeases, renewLeases } from './leases.ts';
import type { QueueDependencies } from './queue-dependencies.ts';
import { recover } from './recover.ts';
import { reserveSlots } from './rate-slots.ts';
import { resend } from './resend.ts';
import { retryNow } from './retry-now.ts';
import { recordTest } from './test-deliveries.ts';

export type DialectOperations = Pick<DeliveryQueue, 'claim' | 'settle' | 'settleAndClaim' | 'settleAndRecheck' | 'onWorkElsewhere' | 'logReadAhead'>;

export function createSqlDeliveryQueue(deps: QueueDependencies, dialect: DialectOperations): DeliveryQueue {
  const { driver, delivererDriver } = deps;
  return {
    ...dialect,
    ingest: ingest(deps),
    renewLeases: renewLeases(delivererDriver),
    release: releaseLeases(delivererDriver),
    reserveSlots: reserveSlots(delivererDriver),
    nextDueAt: nextDueAt(delivererDriver),
    pageAttempts: pageAttempts(driver),
    pageDeliveries: pageDeliveries(driver),
    resend: resend(deps),
    recover: recover(deps),
    recordTest: recordTest(deps),
    retryNow: retryNow(deps),
    prune: prune(delivererDriver),
    pruneIngestKeys: (now, limit) => pruneIngestKeys(delivererDriver, now, limit),
    expireWaiting: expireWaiting(delivererDriver),
    releaseHeadless: releaseHeadless(deps),
    async announce() {
      await deps.tellOthers(driver);
      deps.signal.announce();
    },
    stats: stats(driver),
    onWork: deps.signal.onWork,
    onEndpointDisabled: deps.endpoints.onDisabled,
    onEndpointHealthWritten: deps.endpoints.onWritten,
  };
}
