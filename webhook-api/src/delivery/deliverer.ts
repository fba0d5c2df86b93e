// The deliverer: claims due deliveries under a lease (never more than its limits, in all and per
// endpoint), sends each with the WebhookSender, and settles what the attempts came to, many at a
// time. It wakes when work is announced (ingest in this process, NOTIFY from others), when the next
// retry or batch falls due (a batch ingest opened is a queued delivery due when its linger ends), and
// on a slow poll for what nobody announced (expired leases of a dead deliverer, another SQLite
// process). No database transaction is open while a request is.
import { randomUUID } from 'node:crypto';
import type { Logger } from '@platform/tool-sdk';
import type { ClaimedDelivery, DeliveryQueue, SettledAndClaimed } from '../queue/delivery-queue.ts';
import type { DeliverySettings } from './delivery-settings.ts';
import { toOutgoing, type AttemptResult, type WebhookSender } from './outgoing.ts';
import { createSettlementWriter } from './settlement-writer.ts';
import { settlementOf } from './settlement.ts';
import { startDeliverySpan } from './delivery-tracing.ts';
import { reserveSendSlots, untilSlot, type SendSlot } from './send-slots.ts';
import { createQueueHousekeeping, pruneEveryMs } from './queue-housekeeping.ts';
import { createInFlightTally } from './in-flight-tally.ts';
import type { AttemptMetrics } from './attempt-metrics.ts';

export interface DelivererOptions {
  readonly queue: DeliveryQueue;
  readonly sender: WebhookSender;
  readonly settings: DeliverySettings;
  readonly logger: Logger;
  readonly metrics?: AttemptMetrics | undefined;
  readonly now?: () => number;
  readonly random?: () => number;
}

export interface Deliverer {
  /** This deliverer's name on its leases. */
  readonly owner: string;
  start(): Promise<void>;
  /** Looks for work now. */
  wake(): void;
  /** Requests in flight now. */
  inFlight(): number;
  /**
   * Resolves once a look for work that started after the call found nothing due, with no request in
   * flight and every settlement written: what has been queued so far is delivered, dropped, failed
   * or waiting for a later retry. For tests and benches that must know the deliverer is done.
   */
  whenIdle(): Promise<void>;
  /** Stops claiming, lets requests in flight finish for up to `graceMs`, records them, and gives back every lease. */
  stop(graceMs?: number): Promise<void>;
}

export function createDeliverer(options: DelivererOptions): Deliverer {
  const { queue, sender, settings, logger, metrics } = options;
  const now = options.now ?? Date.now;
  const owner = `deliverer-${randomUUID()}`;
  const log = logger.child({ deliverer: owner });
  const housekeeping = createQueueHousekeeping({ queue, settings, log, metrics, now });

  const tally = createInFlightTally();
  const running = new Set<Promise<void>>();
  /** The deliveries in flight, whose leases are renewed while they are. */
  const leased = new Set<string>();
  const shutdown = new AbortController();
  const writer = createSettlementWriter({
    queue,
    owner,
    log,
    now,
    retryDelayMs: Math.min(settings.pollMs, 1000),
    givingUp: () => stopped && shutdown.signal.aborted,
    onDrained: resolveIfIdle,
    // The pump's next claim takes them into its transaction; it flushes what it leaves when it ends.
    leaveForClaim: () => pumping,
  });
  /** Whether the last look for work found nothing to send; the waiters of whenIdle. */
  let foundNothing = false;
  const idleWaiters: (() => void)[] = [];

  let stopped = true;
  let pumping = false;
  let wanted = false;
  let dueTimer: NodeJS.Timeout | undefined;
  let dueAt = Infinity;
  const timers: NodeJS.Timeout[] = [];
  let stopListening: (() => Promise<void>) | undefined;
  let unsubscribe: (() => void) | undefined;

  const inFlightCount = () => running.size;

  function resolveIfIdle(): void {
    if (idleWaiters.length === 0 || !foundNothing || pumping || wanted || running.size > 0 || writer.busy()) return;
    for (const resolve of idleWaiters.splice(0)) resolve();
  }

  /** Wakes the pump at `at` (epoch ms) unless it is already due to wake sooner. */
  function wakeAt(at: number): void {
    if (stopped || at >= dueAt) return;
    clearTimeout(dueTimer);
    dueAt = at;
    dueTimer = setTimeout(
      () => {
        dueAt = Infinity;
        wake();
      },
      Math.max(0, Math.min(at - now(), 2 ** 31 - 1)),
    );
  }

  function wake(): void {
    if (stopped) return;
    wanted = true;
    if (!pumping) void pump();
  }

  async function pump(): Promise<void> {
    pumping = true;
    try {
      while (wanted && !stopped) {
        wanted = false;
        const at = now();
        const room = settings.maxInFlight - inFlightCount();
        if (room <= 0) continue; // a finishing request wakes the pump again
        const request = {
          owner,
          leaseMs: settings.leaseMs,
          now: at,
          limit: room,
          perConfig: settings.maxInFlightPerEndpoint,
          perCompany: settings.maxInFlightPerCompany,
          ...tally.claimBounds,
        };
        // What the requests that ended came to is written in the claim's transaction.
        const settlements = writer.take();
        let claimed: ClaimedDelivery[];
        if (settlements.length === 0) {
          claimed = await queue.claim(request);
        } else {
          let answer: SettledAndClaimed;
          try {
            answer = await queue.settleAndClaim(settlements, request);
          } catch (error) {
            writer.giveBack(settlements);
            throw error;
          }
          writer.written(settlements, answer.settled);
          claimed = answer.claimed;
        }
        const slots = reserveSendSlots(claimed, queue, at);
        for (const delivery of claimed) send(delivery, slots.get(delivery.id));
        foundNothing = claimed.length === 0;
        if (claimed.length === 0) {
          const next = await queue.nextDueAt();
          if (next !== undefined && next > now()) wakeAt(next);
        }
      }
    } catch (error) {
      log.error({ err: error }, 'the deliverer could not reach the queue; it tries again');
      wakeAt(now() + settings.pollMs);
    } finally {
      pumping = false;
      // What no claim took is written on its own.
      if (writer.busy()) void writer.flush();
      resolveIfIdle();
    }
  }

  /** One attempt of `delivery`, at once or (a rate-limited configuration) at its slot, counted in flight from now. */
  function send(delivery: ClaimedDelivery, slot?: SendSlot): void {
    leased.add(delivery.id);
    tally.add(delivery.config);
    const attempt = (slot === undefined ? attemptNow(delivery) : waitThenAttempt(delivery, slot)).finally(() => {
      running.delete(attempt);
      leased.delete(delivery.id);
      const left = tally.remove(delivery.config);
      // Claims refill in batches: once an endpoint is down to half its slots, or the deliverer to
      // half of its own (crossing it, or empty), rather than one claim for each request that ends.
      const total = inFlightCount();
      if (left <= Math.floor(settings.maxInFlightPerEndpoint / 2) || total === Math.floor(settings.maxInFlight / 2) || total === 0) wake();
    });
    running.add(attempt);
  }

  function attemptNow(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = now();
    const span = startDeliverySpan(delivery);
    return span
      .run(() => sender.send(toOutgoing(delivery), shutdown.signal))
      .then((outcome) => {
        span.settled(outcome);
        // A request cut short by the shutdown is not an attempt: its lease is given back, and it is made again.
        if (shutdown.signal.aborted && outcome.outcome === 'retrying') return;
        record(delivery, outcome, startedAt);
      })
      .catch((error: unknown) => {
        span.failed();
        log.error({ err: error, deliveryId: delivery.id }, 'a delivery attempt failed unexpectedly; its lease runs out and it is made again');
      });
  }

  /** Waits for the delivery's slot, then attempts it; a stop meanwhile leaves it unsent (its lease is given back). */
  async function waitThenAttempt(delivery: ClaimedDelivery, slot: SendSlot): Promise<void> {
    try {
      if (!(await untilSlot(slot, now, shutdown.signal))) return;
    } catch (error) {
      log.error({ err: error, deliveryId: delivery.id }, 'no send time could be reserved for a rate-limited delivery; its lease runs out and it is made again');
      return;
    }
    await attemptNow(delivery);
  }

  /** Records what an attempt came to, to be written with the others that end in this turn. */
  function record(delivery: ClaimedDelivery, outcome: AttemptResult, startedAt: number): void {
    const at = now();
    const settlement = settlementOf({ delivery, result: outcome, startedAt, now: at, settings, random: options.random });
    if (settlement.outcome === 'delivered') metrics?.delivered(at - delivery.acceptedAt, delivery.points.length);
    metrics?.attempt(settlement.outcome, outcome.durationMs);
    if (settlement.outcome === 'dropped' || settlement.outcome === 'failed') {
      log.warn(
        { deliveryId: delivery.id, webhookConfigId: delivery.config.id, outcome: settlement.outcome, status: outcome.status, error: settlement.error },
        `a delivery was ${settlement.outcome}`,
      );
    } else {
      log.debug({ deliveryId: delivery.id, outcome: settlement.outcome, status: outcome.status, attempt: delivery.attempts }, 'delivery attempt');
    }
    writer.add(settlement);
  }

  return {
    owner,
    async start() {
      if (!stopped) return;
      stopped = false;
      const stopWorkListener = queue.onWork(wake);
      // Once per disabling, in the process whose settlement made it.
      const stopDisabledListener = queue.onEndpointDisabled((endpoint) => {
        metrics?.endpointDisabled?.(endpoint.cause);
        log.warn(
          { webhookConfigId: endpoint.configId, companyId: endpoint.companyId, cause: endpoint.cause, reason: endpoint.reason },
          'a webhook endpoint was disabled: new points are not queued for it and what is queued waits until it is enabled again',
        );
      });
      unsubscribe = () => {
        stopWorkListener();
        stopDisabledListener();
      };
      if (queue.onWorkElsewhere) {
        try {
          stopListening = await queue.onWorkElsewhere(wake);
        } catch (error) {
          log.warn({ err: error }, `could not LISTEN for new work; polling every ${settings.pollMs} ms instead`);
        }
      }
      timers.push(
        setInterval(wake, settings.pollMs),
        setInterval(
          () => {
            if (inFlightCount() === 0) return;
            queue.renewLeases(owner, [...leased], now() + settings.leaseMs).catch((error: unknown) => {
              log.warn({ err: error }, 'leases could not be renewed');
            });
          },
          Math.max(50, Math.floor(settings.leaseMs / 3)),
        ),
        setInterval(() => void housekeeping.prune(), pruneEveryMs),
        setInterval(() => void housekeeping.expireWaiting().then(() => housekeeping.releaseHeadless()), Math.max(settings.pollMs, 1_000)),
      );
      for (const timer of timers) timer.unref();
      void housekeeping.prune();
      void housekeeping.expireWaiting();
      wake();
      log.info({ maxInFlight: settings.maxInFlight, perEndpoint: settings.maxInFlightPerEndpoint }, 'deliverer started');
    },
    wake,
    inFlight: inFlightCount,
    whenIdle() {
      return new Promise((resolve) => {
        idleWaiters.push(resolve);
        foundNothing = false;
        wake();
      });
    },
    async stop(graceMs = 5_000) {
      if (stopped) return;
      stopped = true;
      unsubscribe?.();
      await stopListening?.();
      clearTimeout(dueTimer);
      for (const timer of timers) clearInterval(timer);
      timers.length = 0;
      while (pumping) await new Promise((resolve) => setImmediate(resolve));
      const grace = new Promise((resolve) => setTimeout(resolve, graceMs).unref());
      await Promise.race([Promise.allSettled([...running]), grace]);
      shutdown.abort();
      await Promise.allSettled([...running]);
      await writer.flush();
      try {
        await queue.release(owner);
      } catch (error) {
        log.warn({ err: error }, 'leases could not be given back; they run out on their own');
      }
      log.info('deliverer stopped');
    },
  };
}
