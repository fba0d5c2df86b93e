// When a claimed delivery may be sent. A configuration without a rate limit: at once. One with a
// limit: at the send time reserved for it in the configuration's row (queue.reserveSlots), which
// every deliverer moves on under the row's lock, so the requests of all deliverers together are
// spaced a 1/rate apart; the delivery waits for its slot (under its lease), it is not failed.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClaimedDelivery, DeliveryQueue } from '../queue/delivery-queue.ts';

/** A rate-limited delivery's send time (epoch ms), or undefined when its configuration has no limit any more; and another such time, reserved anew. */
export interface SendSlot {
  readonly at: Promise<number | undefined>;
  again(): Promise<number | undefined>;
}

/**
 * The slots of the rate-limited deliveries among `claimed`, reserved a configuration at a time in
 * one statement each, in the order they were claimed; deliveries of other configurations have none.
 */
export function reserveSendSlots(claimed: readonly ClaimedDelivery[], queue: Pick<DeliveryQueue, 'reserveSlots'>, now: () => number): Map<string, SendSlot> {
  const byConfig = new Map<string, ClaimedDelivery[]>();
  for (const delivery of claimed) {
    if (delivery.config.rateLimitPerSecond === null) continue;
    const list = byConfig.get(delivery.config.id) ?? [];
    list.push(delivery);
    byConfig.set(delivery.config.id, list);
  }
  const slots = new Map<string, SendSlot>();
  for (const [configId, deliveries] of byConfig) {
    const reserved = queue.reserveSlots(configId, deliveries.length, now());
    const again = () => queue.reserveSlots(configId, 1, now()).then((times) => times?.[0]);
    // Each delivery's slot is read from the one reservation; a failed reservation fails each of them (not sent: its lease runs out).
    deliveries.forEach((delivery, i) => slots.set(delivery.id, { at: reserved.then((times) => times?.[i]), again }));
  }
  return slots;
}

/**
 * How late a rate-limited request may go after its slot: half the slot interval (25 ms at least, a
 * busy event loop's usual lateness). Requests sent later than that would come closer together than
 * the rate allows (a process that was too busy to send in three slots would send all three at once).
 */
export const latestAfterSlotMs = (rateLimitPerSecond: number) => Math.max(500 / rateLimitPerSecond, 25);

/**
 * Waits until `slot`; false when `signal` aborted the wait (the deliverer is stopping: the delivery
 * is not sent). A slot missed by more than `latestMs` (the reservation answered late, or the timer
 * fired late) is given up for one reserved again, once: a slot never used is lost time, not a
 * request too close to the next. A second miss in a row sends all the same: a deliverer too busy to
 * keep any slot still delivers, as late as it is.
 */
export async function untilSlot(slot: SendSlot, now: () => number, signal: AbortSignal, latestMs: number): Promise<boolean> {
  let at = await slot.at;
  for (let mayReserve = true; ; mayReserve = false) {
    if (at === undefined) return !signal.aborted;
    const wait = at - now();
    if (wait > 0) {
      try {
        await sleep(Math.ceil(wait), undefined, { signal });
      } catch {
        return false;
      }
    }
    if (!mayReserve || now() - at <= latestMs) return !signal.aborted;
    at = await slot.again();
  }
}
