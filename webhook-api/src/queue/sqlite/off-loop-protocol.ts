// What the event loop and the delivery queue's worker thread say to each other: a call of one of
// the deliverer's operations, and its answer or the failure it came to, told apart as the store
// tells them (an outage, a constraint, anything else), since the deliverer acts on the difference.
import type { DeliveryQueue } from '../delivery-queue.ts';
import type { HealthRules } from '../endpoint-health.ts';

/** The queue's operations only a deliverer makes, which run off the event loop. */
export type OffLoopOperation = 'claim' | 'settle' | 'settleAndClaim' | 'nextDueAt' | 'settleAndRecheck' | 'renewLeases' | 'release' | 'prune' | 'expireWaiting';

export interface OffLoopCall {
  readonly id: number;
  readonly operation: OffLoopOperation;
  readonly args: Parameters<DeliveryQueue[OffLoopOperation]>;
}

/** A failure as it crosses the thread: its message, whether the store was unavailable, and SQLite's result code. */
export interface OffLoopFailure {
  readonly message: string;
  readonly unavailable: boolean;
  readonly errcode: number | undefined;
}

export type OffLoopAnswer =
  { readonly id: number; readonly ok: true; readonly value: unknown } | { readonly id: number; readonly ok: false; readonly failure: OffLoopFailure };

/** What the worker is started with. */
export interface OffLoopWorkerData {
  readonly path: string;
  readonly busyTimeoutMs: number | undefined;
  /** When the worker's settlements disable an endpoint. */
  readonly health: HealthRules | undefined;
}
