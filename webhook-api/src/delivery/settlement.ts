// What an attempt settles its delivery as, by SPEC's response table and the retry schedule: pure, so
// every branch is tested without a timer. Delivered and dropped stand; retrying is queued again at
// the schedule's next time (an endpoint's Retry-After honoured within it), or failed once the
// schedule is spent or the delivery would be older than its maximum age by then.
import type { ClaimedDelivery, Settlement } from '../queue/delivery-queue.ts';
import type { DeliverySettings } from './delivery-settings.ts';
import type { AttemptResult } from './outgoing.ts';
import { nextRetryDelay } from './retry-schedule.ts';

export interface SettlementInput {
  readonly delivery: ClaimedDelivery;
  readonly result: AttemptResult;
  /** When the attempt started and when it ended (epoch ms). */
  readonly startedAt: number;
  readonly now: number;
  readonly settings: Pick<DeliverySettings, 'retrySchedule' | 'retryJitter' | 'maxAgeMs'>;
  readonly random?: (() => number) | undefined;
}

/** How long an endpoint that answered 429 without a Retry-After is left alone. */
export const defaultPauseMs = 1_000;
/** The longest pause a Retry-After buys for the whole endpoint (the delivery itself honours it up to the schedule's longest step). */
export const maxPauseMs = 60_000;

export function settlementOf({ delivery, result, startedAt, now, settings, random }: SettlementInput): Settlement {
  const common = {
    id: delivery.id,
    attempt: delivery.attempts,
    status: result.status,
    responseBody: result.responsePrefix,
    startedAt,
    durationMs: result.durationMs,
    pointCount: delivery.points.length,
    ...(delivery.stream !== undefined && delivery.stream !== null && { stream: delivery.stream }),
    endpoint: {
      configId: delivery.config.id,
      wasFailing: delivery.config.health.failingSince !== null,
      // The endpoint asks to be sent less: the next attempts of every delivery to it wait too.
      ...(result.status === 429 && { pauseMs: Math.min(result.outcome === 'retrying' ? (result.retryAfterMs ?? defaultPauseMs) : defaultPauseMs, maxPauseMs) }),
    },
  };
  if (result.outcome === 'delivered') return { ...common, outcome: 'delivered', error: null };
  if (result.outcome === 'dropped') return { ...common, outcome: 'dropped', error: result.error };
  const attempts = delivery.attempts + 1;
  const delay = nextRetryDelay({
    failedAttempts: attempts,
    schedule: settings.retrySchedule,
    retryAfterMs: result.retryAfterMs,
    jitter: settings.retryJitter,
    ...(random && { random }),
  });
  const tooOld = delay !== undefined && now + delay - delivery.acceptedAt > settings.maxAgeMs;
  if (delay === undefined || tooOld) {
    return { ...common, outcome: 'failed', error: `${result.error}; given up after ${attempts} attempts${tooOld ? ' (too old to try again)' : ''}` };
  }
  return { ...common, outcome: 'retrying', error: result.error, nextAttemptAt: now + delay };
}
