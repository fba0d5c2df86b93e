// The deliverer: reads endpoint logs as slots free and claims due rows under a lease, several rounds
// ahead, holding and rechecking those just before sending (held-claims.ts, claim-pacing.ts); sends
// each with the WebhookSender within its limits (in all, per endpoint, per company) and settles what
// the attempts came to, many at a time. It wakes on announced work (ingest here, NOTIFY from others),
// when the next retry or batch falls due, and on a slow poll for what nobody announced (lapsed
// leases, another SQLite process). No database transaction is open while a request is.
import { randomUUID } from 'node:crypto';
import type { Logger } from '@platform/tool-sdk';
import type { ClaimedDelivery, DeliveryQueue } from '../queue/delivery-queue.ts';
import type { DeliverySettings } from './delivery-settings.ts';
import type { WebhookSender } from './outgoing.ts';
import { createSettlementWriter } from './settlement-writer.ts';
import { reserveSendSlots, type SendSlot } from './send-slots.ts';
import { createAttempts } from './delivery-attempts.ts';
import { listenForWork } from './work-listeners.ts';
import { createQueueHousekeeping } from './queue-housekeeping.ts';
import { createInFlightTally } from './in-flight-tally.ts';
import { claimAhead, createClaimPacing, logRoomOf } from './claim-pacing.ts';
import { aheadClaimRequest, createHeldClaims } from './held-claims.ts';
import { createHeldSending } from './held-sending.ts';
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
  const held = createHeldClaims();
  const running = new Set<Promise<void>>();
  /** The deliveries held and in flight, whose leases are renewed while they are. */
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
    // The pump's next claim takes them into its transaction (it flushes what it leaves when it ends);
    // while logged points are in flight, a claim refilling their endpoint comes soon.
    leaveForClaim: () => pumping || pacing.loggedInFlight > 0,
  });
  /** Whether `delivery` fits under the in-flight limits now; if so it is counted in flight. */
  const fits = (delivery: ClaimedDelivery) => tally.admit(delivery.config, settings);
  const heldSending = createHeldSending({
    queue,
    owner,
    held,
    tally,
    writer,
    now,
    room: settings.maxInFlight,
    fits,
    sendAll,
    dropped: (delivery) => {
      leased.delete(delivery.id);
      claimWanted = true;
      rowsWanted = true;
    },
  });
  const attempts = createAttempts({
    sender,
    settings,
    log,
    metrics,
    now,
    random: options.random,
    signal: shutdown.signal,
    settlements: heldSending.settlements,
  });
  /** Whether the last look for work found nothing to send; the waiters of whenIdle. */
  let foundNothing = false;
  const idleWaiters: (() => void)[] = [];

  let stopped = true;
  const readAhead = queue.logReadAhead;
  const pacing = createClaimPacing(settings, held, readAhead?.rounds);
  let pumping = false;
  let wanted = false;
  let claimWanted = false;
  /**
   * Whether the next claim looks at the due rows too (retries, batches, ordered streams, held work
   * of others): after a wake (new work announced, a timer, the poll) or a row's slot freed, not when
   * only an endpoint log is refilled, which would otherwise cost a statement each time.
   */
  let rowsWanted = true;
  let dueTimer: NodeJS.Timeout | undefined;
  let dueAt = Infinity;
  let stopTimers = (): void => undefined;
  let stopListening: (() => Promise<void>) | undefined;
  const inFlightCount = () => running.size;

  function resolveIfIdle(): void {
    if (idleWaiters.length === 0 || !foundNothing || pumping || wanted || running.size > 0 || held.size > 0 || writer.busy()) return;
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

  /** Looks for new work (a claim), and sends what is held. */
  function wake(): void {
    claimWanted = true;
    rowsWanted = true;
    wakeToSend();
  }

  function wakeToSend(): void {
    if (stopped) return;
    wanted = true;
    if (!pumping) void pump();
  }

  async function pump(): Promise<void> {
    pumping = true;
    try {
      while (wanted && !stopped) {
        wanted = false;
        await heldSending.sendHeld();
        if (claimWanted) {
          claimWanted = false;
          await claimMore();
        }
      }
    } catch (error) {
      log.error({ err: error }, 'the deliverer could not reach the queue; it tries again');
      claimWanted = true;
      rowsWanted = true;
      wakeAt(now() + settings.pollMs);
    } finally {
      pumping = false;
      // What no claim took is written on its own.
      if (writer.busy()) void writer.flush();
      resolveIfIdle();
    }
  }

  /**
   * Claims up to `claimAhead` rounds of the deliverer's slots, less what it has in hand; sends at
   * once what fits (claimed in this statement, nothing to recheck) and holds the rest.
   */
  async function claimMore(): Promise<void> {
    const at = now();
    const limit = rowsWanted ? settings.maxInFlight * claimAhead - running.size - held.size : 0;
    rowsWanted = false;
    const logRoom = logRoomOf(settings, tally, held, readAhead?.rounds);
    const sentAt = performance.now();
    if ((limit <= 0 && logRoom.limit <= 0) || stopped) return;
    const request = { ...aheadClaimRequest({ owner, now: at, limit, settings, ahead: claimAhead, tally, held }), logRoom };
    const { claimed } = await writer.writeWith((settlements) =>
      settlements.length === 0
        ? queue.claim(request).then((taken) => ({ settled: new Set<string>(), claimed: taken }))
        : queue.settleAndClaim(settlements, request),
    );
    pacing.claimed(now() - at);
    const going: ClaimedDelivery[] = [];
    for (const delivery of claimed) {
      // Held or in flight already: read again after its log was set back by a recheck whose answer was lost.
      if (leased.has(delivery.id)) continue;
      leased.add(delivery.id);
      // A log point read ahead goes behind what its endpoint holds: an endpoint's points go in log order.
      if (readAhead && delivery.logged && (held.byConfig.get(delivery.config.id) ?? 0) > 0) {
        heldSending.hold(delivery, sentAt);
        wanted = true;
      } else if (fits(delivery)) going.push(delivery);
      else if (delivery.logged && !readAhead) {
        // Read within the free slots, so it fits; were it not to, it goes all the same: read with
        // nothing ahead, a logged point is never held (its endpoint's cursor has passed it).
        tally.add(delivery.config);
        going.push(delivery);
      } else heldSending.hold(delivery, sentAt);
    }
    sendAll(going);
    if (limit <= 0 && claimed.length === 0 && held.size === 0) {
      // The logs had nothing: look at the rows too before calling it idle.
      rowsWanted = claimWanted = wanted = true;
      return;
    }
    foundNothing = claimed.length === 0 && held.size === 0;
    if (foundNothing) {
      const next = await queue.nextDueAt();
      if (next !== undefined && next > now()) wakeAt(next);
    }
  }

  /** Sends `deliveries`, already counted in flight (fits), each at once or at its rate-limited slot. */
  function sendAll(deliveries: readonly ClaimedDelivery[]): void {
    if (deliveries.length === 0) return;
    const slots = reserveSendSlots(deliveries, queue, now);
    for (const delivery of deliveries) send(delivery, slots.get(delivery.id));
  }

  /** One attempt of `delivery`, at once or (a rate-limited configuration) at its slot. */
  function send(delivery: ClaimedDelivery, slot?: SendSlot): void {
    const ended = pacing.started(delivery, now());
    const attempt = (slot === undefined ? attempts.now(delivery) : attempts.atSlot(delivery, slot)).finally(() => {
      running.delete(attempt);
      leased.delete(delivery.id);
      const next = ended({ at: now(), left: tally.remove(delivery.config), total: inFlightCount() });
      if (next.claim) claimWanted = true;
      if (next.rows) rowsWanted = true;
      if (next.send) wakeToSend();
    });
    running.add(attempt);
  }

  return {
    owner,
    async start() {
      if (!stopped) return;
      stopped = false;
      stopListening = await listenForWork({ queue, wake, log, metrics, pollMs: settings.pollMs });
      stopTimers = housekeeping.startTimers({
        wake,
        renewLeases: () => {
          if (leased.size === 0) return;
          queue.renewLeases(owner, [...leased], now() + settings.leaseMs).catch((error: unknown) => {
            log.warn({ err: error }, 'leases could not be renewed');
          });
        },
      });
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
      await stopListening?.();
      clearTimeout(dueTimer);
      stopTimers();
      while (pumping) await new Promise((resolve) => setImmediate(resolve));
      const grace = new Promise((resolve) => setTimeout(resolve, graceMs).unref());
      await Promise.race([Promise.allSettled([...running]), grace]);
      shutdown.abort();
      await Promise.allSettled([...running]);
      for (const delivery of held.clear()) leased.delete(delivery.id);
      heldSending.clear();
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
