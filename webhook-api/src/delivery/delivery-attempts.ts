// One attempt of a claimed delivery: sent with the WebhookSender (at once, or at a rate-limited
// configuration's reserved slot), traced, counted in the metrics and logged, and what it came to
// handed on as a settlement to be written.
import type { Logger } from '@platform/tool-sdk';
import type { ClaimedDelivery } from '../queue/delivery-queue.ts';
import type { AttemptMetrics } from './attempt-metrics.ts';
import type { DeliverySettings } from './delivery-settings.ts';
import { startDeliverySpan } from './delivery-tracing.ts';
import { toOutgoing, type AttemptResult, type WebhookSender } from './outgoing.ts';
import { latestAfterSlotMs, untilSlot, type SendSlot } from './send-slots.ts';
import { settlementOf } from './settlement.ts';
import type { SettlementWriter } from './settlement-writer.ts';

export interface DeliveryAttemptOptions {
  readonly sender: WebhookSender;
  readonly settings: DeliverySettings;
  readonly log: Logger;
  readonly metrics: AttemptMetrics | undefined;
  readonly now: () => number;
  readonly random: (() => number) | undefined;
  /** Aborted when the deliverer stops: a request cut short by it is not an attempt. */
  readonly signal: AbortSignal;
  /** Takes what an attempt came to, to be written with the others that end in this turn. */
  readonly settlements: Pick<SettlementWriter, 'add'>;
}

export interface DeliveryAttempts {
  /** Attempts `delivery` now; never rejects (a failure is logged, and its lease runs out). */
  now(delivery: ClaimedDelivery): Promise<void>;
  /** Waits for the delivery's slot (another when it was missed: untilSlot), then attempts it; a stop meanwhile leaves it unsent (its lease is given back). */
  atSlot(delivery: ClaimedDelivery, slot: SendSlot): Promise<void>;
}

export function createAttempts(options: DeliveryAttemptOptions): DeliveryAttempts {
  const { sender, settings, log, metrics, now, signal } = options;

  function attemptNow(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = now();
    const span = startDeliverySpan(delivery);
    return span
      .run(() => sender.send(toOutgoing(delivery), signal))
      .then((outcome) => {
        span.settled(outcome);
        // A request cut short by the shutdown is not an attempt: its lease is given back, and it is made again.
        if (signal.aborted && outcome.outcome === 'retrying') return;
        record(delivery, outcome, startedAt);
      })
      .catch((error: unknown) => {
        span.failed();
        log.error({ err: error, deliveryId: delivery.id }, 'a delivery attempt failed unexpectedly; its lease runs out and it is made again');
      });
  }

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
    options.settlements.add(settlement);
  }

  return {
    now: attemptNow,
    async atSlot(delivery, slot) {
      const latestMs = latestAfterSlotMs(delivery.config.rateLimitPerSecond ?? 1);
      try {
        if (!(await untilSlot(slot, now, signal, latestMs))) return;
      } catch (error) {
        log.error(
          { err: error, deliveryId: delivery.id },
          'no send time could be reserved for a rate-limited delivery; its lease runs out and it is made again',
        );
        return;
      }
      await attemptNow(delivery);
    },
  };
}
