// What a deliverer does for the queue besides delivering, on its timers: pruning settled
// deliveries past their retention and ingest keys past their window, failing what waited for a
// disabled endpoint past the maximum delivery age, and letting ordered streams whose head went go on. Each runs in chunks, and a failure is logged and
// tried again at the next turn.
import type { Logger } from '@platform/tool-sdk';
import type { DeliveryQueue } from '../queue/delivery-queue.ts';
import type { AttemptMetrics } from './attempt-metrics.ts';
import type { DeliverySettings } from './delivery-settings.ts';

/** How often delivered, dropped and failed deliveries past their retention (and old ingest keys) are pruned. */
export const pruneEveryMs = 10 * 60_000;
const pruneChunk = 1000;

export interface QueueHousekeepingOptions {
  readonly queue: DeliveryQueue;
  readonly settings: Pick<DeliverySettings, 'maxAgeMs' | 'retentionMs' | 'pollMs' | 'leaseMs'>;
  readonly log: Logger;
  readonly metrics?: AttemptMetrics | undefined;
  readonly now: () => number;
}

export function createQueueHousekeeping({ queue, settings, log, metrics, now }: QueueHousekeepingOptions) {
  /** Fails what waited for a disabled endpoint past the maximum delivery age. */
  async function expireWaiting(): Promise<void> {
    try {
      let expired = 0;
      for (let n = pruneChunk; n === pruneChunk; expired += n) n = await queue.expireWaiting(now(), settings.maxAgeMs, pruneChunk);
      if (expired > 0) {
        metrics?.expired?.(expired);
        log.warn({ expired }, 'deliveries that waited for a disabled endpoint past the maximum delivery age were failed');
      }
    } catch (error) {
      log.warn({ err: error }, 'deliveries waiting for disabled endpoints could not be expired; tried again later');
    }
  }

  async function prune(): Promise<void> {
    try {
      let removed = 0;
      for (let n = pruneChunk; n === pruneChunk; removed += n) n = await queue.prune(now() - settings.retentionMs, pruneChunk);
      if (removed > 0) log.info({ removed }, 'pruned settled deliveries past their retention');
      let keys = 0;
      for (let n = pruneChunk; n === pruneChunk; keys += n) n = await queue.pruneIngestKeys(now(), pruneChunk);
      if (keys > 0) log.info({ removed: keys }, 'pruned ingest idempotency keys past their 24 hours');
    } catch (error) {
      log.warn({ err: error }, 'settled deliveries could not be pruned; tried again later');
    }
  }

  /** Lets a stream left without a head (an unlink or an expiry took it) go on. */
  async function releaseHeadless(): Promise<void> {
    try {
      const released = await queue.releaseHeadless(pruneChunk);
      if (released > 0) log.info({ released }, 'ordered streams left without a head go on');
    } catch (error) {
      log.warn({ err: error }, 'ordered streams without a head could not be let go; tried again later');
    }
  }

  /**
   * The deliverer's timers (unref'd): its poll (`wake`), the renewal of its leases a third of a
   * lease apart, pruning, and the expiry and stream repair every poll (at least a second apart);
   * pruning and the expiry run once at once. Returns their stop.
   */
  function startTimers({ wake, renewLeases }: { readonly wake: () => void; readonly renewLeases: () => void }): () => void {
    const timers = [
      setInterval(wake, settings.pollMs),
      setInterval(renewLeases, Math.max(50, Math.floor(settings.leaseMs / 3))),
      setInterval(() => void prune(), pruneEveryMs),
      setInterval(() => void expireWaiting().then(releaseHeadless), Math.max(settings.pollMs, 1_000)),
    ];
    for (const timer of timers) timer.unref();
    void prune();
    void expireWaiting();
    return () => {
      for (const timer of timers) clearInterval(timer);
    };
  }

  return { prune, expireWaiting, releaseHeadless, startTimers };
}
