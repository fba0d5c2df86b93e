// What a deliverer holds and settles: a claimed delivery, its outcome, its settlement and attempt
// line, and what a claim and a settlement answer (the words of delivery-queue.ts's operations).
import type { DeliveryMode, StoredConfig } from '../store/records.ts';

/** A queued delivery a deliverer holds under its lease, with its configuration as it is now. */
export interface ClaimedDelivery {
  readonly id: string;
  /** What the receiver knows it by (`webhook-id`): the same on its retries and on a resend of it. */
  readonly webhookId: string;
  readonly config: StoredConfig;
  readonly mode: DeliveryMode;
  readonly gatewayId: string;
  readonly measurement: string;
  readonly points: string[];
  /** Attempts made so far: this attempt's X-Webhook-Retry-Count. */
  readonly attempts: number;
  /** When its first point was accepted (epoch ms): its age, and the ingest-to-delivery latency. */
  readonly acceptedAt: number;
  /**
   * The `traceparent` of each ingest whose points it carries (one for Realtime, a bounded number for
   * a batch: batch-fill.ts), for the attempt span's links; none where none was recorded.
   */
  readonly traceContexts?: readonly string[];
  /** Its stream, when its configuration delivers in order (streams.ts): the settlement that ends it lets the next one of the stream go. */
  readonly stream?: string | null;
  /**
   * Read from its endpoint's log (endpoint-logs.ts) under the endpoint's lease, not leased by
   * itself: sent at once, or held briefly where the queue reads ahead (store/log-read-ahead.ts).
   */
  readonly logged?: boolean;
}

/** A delivery claimed ahead of sending, as a recheck sees it: its id and how many points it carries. */
export interface HeldDelivery {
  readonly id: string;
  readonly points: number;
}

export type DeliveryOutcome = 'delivered' | 'retrying' | 'dropped' | 'failed';

/** What a retry-now came to for a delivery that is not its stream's head: it waits for an earlier one of its device. */
export type HeldBack = 'held';
export const deliveryOutcomes: readonly DeliveryOutcome[] = ['delivered', 'retrying', 'dropped', 'failed'];

/** What one attempt came to, recorded in the attempt log; `retrying` queues the delivery again at `nextAttemptAt`. */
export interface Settlement {
  readonly id: string;
  readonly outcome: DeliveryOutcome;
  readonly nextAttemptAt?: number | undefined;
  readonly attempt: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly responseBody: string;
  readonly startedAt: number;
  readonly durationMs: number;
  readonly pointCount: number;
  /**
   * The configuration the attempt went to, and whether its endpoint was failing when the delivery
   * was claimed: what the attempt tells of the endpoint's health (endpoint-health.ts). Without it
   * the attempt is recorded and the health left as it is.
   */
  readonly endpoint?: EndpointNote | undefined;
  /** The delivery's stream (ClaimedDelivery.stream): delivered, dropped or failed, it lets the stream's next delivery go. */
  readonly stream?: string | null | undefined;
}

/** What an attempt tells of its endpoint beside its outcome. */
export interface EndpointNote {
  readonly configId: string;
  /** Whether the endpoint was failing when the delivery was claimed (a delivered attempt then ends the run). */
  readonly wasFailing: boolean;
  /** The endpoint answered 429: nothing more is sent to it for this long (its Retry-After, within bounds). */
  readonly pauseMs?: number | undefined;
}

/** A configuration a deliverer disabled as it settled an attempt: its endpoint is gone or has failed too long. */
export interface DisabledEndpoint {
  readonly configId: string;
  readonly companyId: number;
  readonly reason: string;
  /** What disabled it: a 410 Gone, or failures for WEBHOOK_DISABLE_AFTER. */
  readonly cause: 'gone' | 'failing';
}

export interface SettledAndClaimed {
  /** The settlements' ids that were written (as settle answers). */
  readonly settled: Set<string>;
  readonly claimed: ClaimedDelivery[];
}

/** What a recheck of held deliveries found (leases.ts, recheckIn). */
export interface Rechecked {
  /** The held deliveries that may be sent now, each with its configuration as it is now. */
  readonly sendable: Map<string, StoredConfig>;
  /**
   * The endpoints whose logs were set back to before points read ahead that are not to be sent now
   * (the endpoint paused, disabled or inactive, or the cursor's lease run out): their holder lets
   * go of every point of theirs it holds, to be read again when they may be sent.
   */
  readonly setBack: Set<string>;
}

export interface SettledAndRechecked extends Rechecked {
  /** The settlements' ids that were written (as settle answers). */
  readonly settled: Set<string>;
}

/** One line of the attempt log. */
export interface AttemptRecord {
  readonly deliveryId: string;
  /** The delivery's `webhook-id`. */
  readonly webhookId: string;
  readonly attempt: number;
  readonly outcome: DeliveryOutcome;
  readonly responseStatus: number | null;
  readonly error: string | null;
  readonly responseBody: string | null;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly pointCount: number;
  /** On the latest attempt of a delivery waiting for its retry: when the retry is due (ISO 8601). */
  readonly nextAttemptAt: string | null;
  /** A test delivery (POST /v2/webhooks/{id}/test), not a delivery of telemetry. */
  readonly test: boolean;
}
