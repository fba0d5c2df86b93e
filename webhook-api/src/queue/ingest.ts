// Ingest: routes the points per the scopes as they are now and queues what they match, in one
// transaction (with the request's Idempotency-Key, when it sent one), and tells the deliverers of
// what they have to look at: in others through `tellOthers` (routing sends it, with the commit),
// in this process once committed.
import { currentTraceparent } from '@platform/tool-sdk/observability';
import type { SqlDriver } from '../store/sql-driver.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import { answerIngestKey, claimIngestKey } from './ingest-keys.ts';
import { routeAndQueue } from './routing.ts';
import type { QueueDependencies } from './queue-dependencies.ts';

/** How many times ingest routes again when a configuration was deleted between its routing and its insert. */
const ingestRetries = 3;

export const ingest =
  ({ driver, signal, tellOthers, batches, lockStreams }: QueueDependencies): DeliveryQueue['ingest'] =>
  async (points, now, idempotency) => {
    // Read here, in the ingest request's context: a transaction may run its work in another's turn.
    const traceContext = currentTraceparent() ?? null;
    for (let attempt = 1; ; attempt++) {
      try {
        const routed = await driver.transaction(async (tx) => {
          if (idempotency) {
            const claimed = await claimIngestKey(tx, idempotency, points.length, now);
            if (claimed !== 'ours') return claimed;
          }
          const result = await routeAndQueue(tx, driver.dialect, points, now, batches, { traceContext, lockStreams, tellOthers });
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
        // by side): route again, without it.
        if (!isForeignKeyFailure(driver, error) || attempt >= ingestRetries) throw error;
      }
    }
  };

const isForeignKeyFailure = (driver: SqlDriver, error: unknown) => driver.failureOf(error) === 'foreign-key';
