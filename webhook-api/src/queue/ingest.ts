// Ingest: routes the points per the scopes as they are now and queues what they match, atomically:
// in one transaction (with the request's Idempotency-Key, when it sent one), or on PostgreSQL, for
// points that go only to one endpoint's log, in one statement (logged-ingest.ts); and tells the
// deliverers of what they have to look at: in others through `tellOthers` (sent with the commit), in
// this process once committed.
import { currentTraceparent } from '@platform/tool-sdk/observability';
import type { SqlDriver } from '../store/sql-driver.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import { answerIngestKey, claimIngestKey } from './ingest-keys.ts';
import { isLoggedOnly, queueLoggedOnly } from './logged-ingest.ts';
import { planRoutes, routeAndQueue, routesOf } from './routing.ts';
import type { QueueDependencies } from './queue-dependencies.ts';

/** How many times ingest routes again when a configuration was deleted between its routing and its insert, or a conflict rolled it back. */
const ingestRetries = 3;

export const ingest =
  ({ driver, signal, tellOthers, batches, lockStreams, inOneStatement }: QueueDependencies): DeliveryQueue['ingest'] =>
  async (points, now, idempotency) => {
    // Read here, in the ingest request's context: a transaction may run its work in another's turn.
    const traceContext = currentTraceparent() ?? null;
    for (let attempt = 1; ; attempt++) {
      try {
        // Where the dialect allows, the points are routed first (planRoutes); those that go only to
        // one endpoint's log (the usual Realtime ingest) are then written by one statement, the rest
        // as planned here, in a transaction (its statements would each read the scopes as committed
        // then anyway).
        const plan = inOneStatement && !idempotency ? planRoutes(await routesOf(driver, driver.dialect.jsonRows, points), points, traceContext) : undefined;
        const routed =
          plan && inOneStatement && isLoggedOnly(plan)
            ? await queueLoggedOnly(driver, driver.dialect.jsonRows, plan, now, inOneStatement)
            : await driver.transaction(async (tx) => {
                if (idempotency) {
                  const claimed = await claimIngestKey(tx, idempotency, points.length, now);
                  if (claimed !== 'ours') return claimed;
                }
                const result = await routeAndQueue(tx, driver.dialect, points, now, batches, { traceContext, lockStreams, tellOthers, plan });
                if (idempotency) await answerIngestKey(tx, idempotency, result.queued);
                return result;
              });
        if (routed === 'key-conflict') return routed;
        if (!('announce' in routed)) return { queued: 0, replayed: routed };
        // Points that only joined an open batch change nothing a deliverer waits for.
        if (routed.announce) signal.announce();
        return routed.skipped > 0 ? { queued: routed.queued, skipped: routed.skipped } : { queued: routed.queued };
      } catch (error) {
        // A configuration deleted between routing and insert (possible where transactions run side
        // by side): route again, without it. A deadlock or serialization failure rolled it all
        // back: again too.
        if (!isRetried(driver, error) || attempt >= ingestRetries) throw error;
      }
    }
  };

const isRetried = (driver: SqlDriver, error: unknown) => ['foreign-key', 'conflict'].includes(driver.failureOf(error) ?? '');
