// Sending what a deliverer holds (held-claims.ts) as slots free. A claimed row, and a point read
// ahead from its endpoint's log (store/log-read-ahead.ts) past the read-ahead window, are rechecked
// by the queue first (queue.settleAndRecheck): deleted, unlinked or taken over, not sent; a row
// whose endpoint is disabled or paused, or whose lease ran out, given back to the queue; a log
// point's endpoint that may not be sent now (or whose cursor's lease ran out) has its log set back
// to before its points, and every one of them held is let go, to be read again. A log point within
// the window goes at once with no statement, unless its endpoint is rate-limited (its send waits
// for a slot, which may come after the window) or an attempt to it failed since it was read (a
// 429's pause or the endpoint disabled is written with that attempt's settlement: the recheck reads
// it after that settlement is written).
import type { ClaimedDelivery, DeliveryQueue, Settlement } from '../queue/delivery-queue.ts';
import type { LogReadAhead } from '../store/log-read-ahead.ts';
import type { HeldClaims } from './held-claims.ts';
import type { InFlightTally } from './in-flight-tally.ts';
import type { SettlementWriter } from './settlement-writer.ts';

export interface HeldSendingOptions {
  readonly queue: DeliveryQueue;
  readonly owner: string;
  readonly held: HeldClaims;
  readonly tally: InFlightTally;
  readonly writer: SettlementWriter;
  readonly now: () => number;
  /** The deliverer's slots: at most this many taken at once. */
  readonly room: number;
  /** Counts a delivery in flight if it fits under the limits now. */
  readonly fits: (delivery: ClaimedDelivery) => boolean;
  readonly sendAll: (deliveries: readonly ClaimedDelivery[]) => void;
  /** A held delivery not sent after all (let go, or found not to be sent): no longer leased; a claim finds what is left. */
  readonly dropped: (delivery: ClaimedDelivery) => void;
}

export interface HeldSending {
  /** Holds `delivery`, claimed by a claim sent at `sentAt` (performance.now()). */
  hold(delivery: ClaimedDelivery, sentAt: number): void;
  /** What the settlement writer is given: a failed attempt's endpoint has its held log points rechecked. */
  readonly settlements: Pick<SettlementWriter, 'add'>;
  /** Sends what is held and fits now. */
  sendHeld(): Promise<void>;
  /** Forgets everything (a stop). */
  clear(): void;
}

export function createHeldSending(options: HeldSendingOptions): HeldSending {
  const { queue, owner, held, tally, writer, fits, sendAll, dropped } = options;
  const readAhead: LogReadAhead | undefined = queue.logReadAhead;
  /** When the claim that read each held log point was sent (performance.now()). */
  const readAt = new Map<string, number>();
  /** Failed attempts per endpoint since its held log points were last rechecked: a recheck under way when another came does not clear it. */
  const failures = new Map<string, number>();

  /** The endpoints whose held log points among `taken` may go unchecked now (all of an endpoint's or none: its points go in log order). */
  function unchecked(taken: readonly ClaimedDelivery[]): Set<string> {
    const endpoints = new Set<string>();
    if (!readAhead) return endpoints;
    const at = performance.now();
    const stale = new Set<string>();
    for (const delivery of taken) {
      if (!delivery.logged) continue;
      const read = readAt.get(delivery.id);
      const fresh = read !== undefined && at - read < readAhead.windowMs && delivery.config.rateLimitPerSecond === null && !failures.has(delivery.config.id);
      (fresh ? endpoints : stale).add(delivery.config.id);
    }
    for (const configId of stale) endpoints.delete(configId);
    return endpoints;
  }

  /** Rechecks `picked` with the settlements waiting, and sends what may go, with its configuration as it is now. */
  async function recheckAndSend(picked: readonly ClaimedDelivery[]): Promise<void> {
    const endpoints = new Set(picked.filter((delivery) => delivery.logged).map((delivery) => delivery.config.id));
    // A failure's settlement (its pause, its endpoint disabled) written before the recheck reads the endpoint.
    if ([...endpoints].some((configId) => failures.has(configId))) await writer.flush();
    const seen = new Map([...endpoints].map((configId) => [configId, failures.get(configId)]));
    const answer = await writer.writeWith(
      (waiting) =>
        queue.settleAndRecheck(
          waiting,
          owner,
          picked.map((delivery) => ({ id: delivery.id, points: delivery.points.length })),
          options.now(),
        ),
      () => {
        // Back where they were, ahead of the rest: an endpoint's points go in log order.
        for (const delivery of picked) tally.remove(delivery.config);
        held.putBack(picked);
      },
    );
    for (const configId of endpoints) if (failures.get(configId) === seen.get(configId)) failures.delete(configId);
    for (const configId of answer.setBack) {
      // Read again from before these when the endpoint sends again; nothing of it held goes now.
      for (const delivery of held.letGoOfLog(configId)) {
        readAt.delete(delivery.id);
        dropped(delivery);
      }
    }
    const going: ClaimedDelivery[] = [];
    for (const delivery of picked) {
      readAt.delete(delivery.id);
      const config = delivery.logged && answer.setBack.has(delivery.config.id) ? undefined : answer.sendable.get(delivery.id);
      if (config) going.push({ ...delivery, config });
      else {
        tally.remove(delivery.config);
        dropped(delivery);
      }
    }
    sendAll(going);
  }

  return {
    hold(delivery, sentAt) {
      if (delivery.logged) readAt.set(delivery.id, sentAt);
      held.add(delivery);
    },
    settlements: {
      add(settlement: Settlement) {
        const configId = settlement.endpoint?.configId;
        if (readAhead && settlement.outcome !== 'delivered' && configId !== undefined) failures.set(configId, (failures.get(configId) ?? 0) + 1);
        writer.add(settlement);
      },
    },
    async sendHeld() {
      const taken = held.take(options.room, fits);
      if (taken.length === 0) return;
      const fresh = unchecked(taken);
      const picked: ClaimedDelivery[] = [];
      const going: ClaimedDelivery[] = [];
      for (const delivery of taken) {
        if (delivery.logged && fresh.has(delivery.config.id)) {
          readAt.delete(delivery.id);
          going.push(delivery);
        } else picked.push(delivery);
      }
      sendAll(going);
      if (picked.length > 0) await recheckAndSend(picked);
    },
    clear() {
      readAt.clear();
      failures.clear();
    },
  };
}
