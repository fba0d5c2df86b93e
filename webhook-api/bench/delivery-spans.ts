// Where the deliverer's time goes, measured from outside the pipeline: the delivery queue's calls
// wrapped with a timer, undici requests timed through its diagnostics channels, the event loop's
// utilization, and on demand a CPU profile summed by function and by package.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { startCpuProfile } from '@platform/devtools/cpu-profile';
import type { DeliveryQueue } from '../src/queue/delivery-queue.ts';

export interface Span {
  calls: number;
  /** Rows the calls handled: deliveries claimed, settlements written. */
  items: number;
  ms: number;
}

export type Spans = Partial<Record<string, Span>>;

/** The queue with each call the deliverer makes timed into `spans` (calls that overlap each count whole). */
export function timedQueue(queue: DeliveryQueue, spans: Spans): DeliveryQueue {
  const span = (name: string): Span => (spans[name] ??= { calls: 0, items: 0, ms: 0 });
  const timed =
    <A extends unknown[], R>(name: string, call: (...args: A) => Promise<R>, items: (result: R, ...args: A) => number) =>
    async (...args: A): Promise<R> => {
      const started = performance.now();
      const result = await call(...args);
      const s = span(name);
      s.calls += 1;
      s.ms += performance.now() - started;
      s.items += items(result, ...args);
      return result;
    };
  return {
    ...queue,
    claim: timed('claim', queue.claim.bind(queue), (r) => r.length),
    settle: timed('settle', queue.settle.bind(queue), (_r, _owner, settlements) => settlements.length),
    // Items: the deliveries claimed; the settlements it wrote are counted apart.
    settleAndClaim: timed('settleAndClaim', queue.settleAndClaim.bind(queue), (r, settlements) => {
      const written = (spans.settledWithClaim ??= { calls: 0, items: 0, ms: 0 });
      written.calls += 1;
      written.items += settlements.length;
      return r.claimed.length;
    }),
    // Items: the held deliveries rechecked; the settlements it wrote are counted apart.
    settleAndRecheck: timed('settleAndRecheck', queue.settleAndRecheck.bind(queue), (_r, settlements, _owner, held) => {
      const written = (spans.settledWithRecheck ??= { calls: 0, items: 0, ms: 0 });
      written.calls += 1;
      written.items += settlements.length;
      return held.length;
    }),
    nextDueAt: timed('nextDueAt', queue.nextDueAt.bind(queue), () => 0),
    renewLeases: timed('renewLeases', queue.renewLeases.bind(queue), (r) => r),
  };
}

/** Times every undici request of this process, from its creation (pool wait included) to its response headers, into `spans.request`. */
export function timeRequests(spans: Spans): () => void {
  const started = new WeakMap<object, number>();
  const onCreate = (message: unknown): void => {
    started.set((message as { request: object }).request, performance.now());
  };
  const onHeaders = (message: unknown): void => {
    const at = started.get((message as { request: object }).request);
    if (at === undefined) return;
    const s = (spans.request ??= { calls: 0, items: 0, ms: 0 });
    s.calls += 1;
    s.items += 1;
    s.ms += performance.now() - at;
  };
  subscribe('undici:request:create', onCreate);
  subscribe('undici:request:headers', onHeaders);
  return () => {
    unsubscribe('undici:request:create', onCreate);
    unsubscribe('undici:request:headers', onHeaders);
  };
}

export interface ProfileSummary {
  readonly totalMs: number;
  /** Self time by function, the largest first. */
  readonly functions: readonly (readonly [string, number])[];
  /** Self time by package or source file, the largest first. */
  readonly places: readonly (readonly [string, number])[];
}

/** Starts a sampling CPU profile of this process; the function it returns stops it and sums it (idle included, so shares are of the time sampled). */
export async function startProfile(): Promise<() => Promise<ProfileSummary>> {
  const stop = await startCpuProfile(250);
  return async () => {
    const { totalMicros, byFunction, byPlace } = await stop();
    const largest = (sums: Readonly<Record<string, number>>, n: number) =>
      Object.entries(sums)
        .map(([name, micros]) => [name, micros / 1000] as const)
        .sort((a, b) => b[1] - a[1])
        .slice(0, n);
    return { totalMs: totalMicros / 1000, functions: largest(byFunction, 12), places: largest(byPlace, 10) };
  };
}
