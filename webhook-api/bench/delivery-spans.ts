// Where the deliverer's time goes, measured from outside the pipeline: the delivery queue's calls
// wrapped with a timer, undici requests timed through its diagnostics channels, the event loop's
// utilization, and on demand a CPU profile summed by function and by package.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Session } from 'node:inspector/promises';
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

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

export interface ProfileSummary {
  readonly totalMs: number;
  /** Self time by function, the largest first. */
  readonly functions: readonly (readonly [string, number])[];
  /** Self time by package or source folder. */
  readonly places: readonly (readonly [string, number])[];
}

/** Where a function lives: a package under node_modules, a source file of this repository, Node's own code, or native/VM. */
function placeOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage?.[1] !== undefined) return inPackage[1];
  if (url.startsWith('node:')) return 'node: internals';
  const own = /\/work\/[^/]+\/([^/]+\/[^/]+)\//.exec(url) ?? /([^/]+\/[^/]+)\/[^/]+$/.exec(url);
  return own?.[1] ?? url;
}

/** Starts a sampling CPU profile of this process; the function it returns stops it and sums it. */
export async function startProfile(): Promise<() => Promise<ProfileSummary>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    const nodes = new Map<number, ProfileNode>(profile.nodes.map((node) => [node.id, node]));
    const byFunction = new Map<string, number>();
    const byPlace = new Map<string, number>();
    let totalMs = 0;
    const samples = profile.samples ?? [];
    const deltas = profile.timeDeltas ?? [];
    for (const [i, id] of samples.entries()) {
      const node = nodes.get(id);
      const ms = (deltas[i] ?? 0) / 1000;
      if (!node) continue;
      const { functionName, url, lineNumber } = node.callFrame;
      const file = url.split('/').at(-1) ?? '';
      const name = `${functionName || '(anonymous)'}${file ? ` ${file}:${lineNumber + 1}` : ''}`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
      const place = placeOf(url, functionName);
      byPlace.set(place, (byPlace.get(place) ?? 0) + ms);
      totalMs += ms;
    }
    const largest = (map: Map<string, number>, n: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
    return { totalMs, functions: largest(byFunction, 12), places: largest(byPlace, 10) };
  };
}
