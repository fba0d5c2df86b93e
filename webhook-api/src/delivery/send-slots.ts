// When a claimed delivery may be sent. A configuration without a rate limit: at once. One with a
// limit: at the send time reserved for it in the configuration's row (queue.reserveSlots), which
// every deliverer moves on under the row's lock, so the requests of all deliverers together are
// spaced a 1/rate apart; the delivery waits for its slot (under its lease), it is not failed.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClaimedDelivery, DeliveryQueue } from '../queue/delivery-queue.ts';

/** A rate-limited delivery's send time (epoch ms), or undefined when its configuration has no limit any more. */
export type SendSlot = Promise<number | undefined>;

/**
 * The slots of the rate-limited deliveries among `claimed`, reserved a configuration at a time in
 * one statement each, in the order they were claimed; deliveries of other configurations have none.
 */
export function reserveSendSlots(claimed: readonly ClaimedDelivery[], queue: Pick<DeliveryQueue, 'reserveSlots'>, now: number): Map<string, SendSlot> {
  const byConfig = new Map<string, ClaimedDelivery[]>();
  for (const delivery of claimed) {
    if (delivery.config.rateLimitPerSecond === null) continue;
    const list = byConfig.get(delivery.config.id) ?? [];
    list.push(delivery);
    byConfig.set(delivery.config.id, list);
  }
  const slots = new Map<string, SendSlot>();
  for (const [configId, deliveries] of byConfig) {
    const reserved = queue.reserveSlots(configId, deliveries.length, now);
    // Each delivery's slot is read from the one reservation; a failed reservation fails each of them (not sent: its lease runs out).
    deliveries.forEach((delivery, i) =>
      slots.set(
        delivery.id,
        reserved.then((times) => times?.[i]),
      ),
    );
  }
  return slots;
}

/** Waits until `slot`; false when `signal` aborted the wait (the deliverer is stopping: the delivery is not sent). */
export async function untilSlot(slot: SendSlot, now: () => number, signal: AbortSignal): Promise<boolean> {
  const at = await slot;
  if (at === undefined) return !signal.aborted;
  const wait = at - now();
  if (wait <= 0) return !signal.aborted;
  try {
    await sleep(Math.ceil(wait), undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
