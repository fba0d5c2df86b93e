// The SQLite delivery queue with the deliverer's work off the event loop, an option
// (openSqliteDatabase's queueThread) and not the default: the deliverer's claims and settlements run
// in a worker thread on a connection of its own (queue-worker.ts), started on the deliverer's first
// call, and the loop only sends. The delivery bench compares the two in every run (docs/operations.md,
// Targets): on 2 CPUs 0.72-0.86x of the loop's own connection when it was written (the trips between
// the threads and the two connections' turns at the write lock cost more than the loop time they
// freed), 1.12-1.21x since the queue's statements got cheaper, 0.80-1.06x in later runs: not the
// default, buying nothing the runs agree on (its ingest-to-delivery latency is as the loop's).
import { Worker } from 'node:worker_threads';
import type { DeliveryQueue } from '../delivery-queue.ts';
import type { HealthRules } from '../endpoint-health.ts';
import { StoreUnavailableError } from '../../store/store-unavailable.ts';
import type { OffLoopAnswer, OffLoopCall, OffLoopFailure, OffLoopOperation, OffLoopWorkerData } from './off-loop-protocol.ts';

export interface OffLoopQueue extends DeliveryQueue {
  /** Stops the worker (its calls in progress finish first) and closes its connection. */
  close(): Promise<void>;
}

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

/** A failure from the worker as the store would have thrown it in the loop. */
function rethrown({ message, unavailable, errcode }: OffLoopFailure): Error {
  if (unavailable) return new StoreUnavailableError(message);
  return Object.assign(new Error(message), errcode === undefined ? {} : { errcode });
}

/** `inLoop` with the deliverer's operations sent to a worker thread on the database at `path`. */
export function offLoopQueue(inLoop: DeliveryQueue, path: string, options: { busyTimeoutMs?: number; health?: HealthRules } = {}): OffLoopQueue {
  /** The worker running now, with the calls waiting for its answers. */
  let current: { readonly thread: Worker; readonly pending: Map<number, Pending>; readonly exited: Promise<void> } | undefined;
  let nextId = 0;

  function started(): NonNullable<typeof current> {
    if (current) return current;
    const data: OffLoopWorkerData = { path, busyTimeoutMs: options.busyTimeoutMs, health: options.health };
    const thread = new Worker(new URL('./queue-worker.ts', import.meta.url), { workerData: data });
    const pending = new Map<number, Pending>();
    // A worker that failed or stopped is an outage of the store: its calls fail, and the next call starts a new one.
    const retire = (error: Error): void => {
      if (current?.thread === thread) current = undefined;
      for (const { reject } of pending.values()) reject(error);
      pending.clear();
    };
    // Held only while a call waits for its answer: an idle deliverer never keeps the process up.
    thread.unref();
    thread.on('message', (reply: OffLoopAnswer) => {
      const call = pending.get(reply.id);
      if (!call) return;
      pending.delete(reply.id);
      if (pending.size === 0) thread.unref();
      if (reply.ok) call.resolve(reply.value);
      else call.reject(rethrown(reply.failure));
    });
    thread.on('error', (error: Error) => {
      retire(new StoreUnavailableError(`the delivery queue's worker failed: ${error.message}`));
    });
    const exited = new Promise<void>((resolve) => {
      thread.once('exit', () => {
        retire(new StoreUnavailableError("the delivery queue's worker stopped"));
        resolve();
      });
    });
    current = { thread, pending, exited };
    return current;
  }

  function call<O extends OffLoopOperation>(operation: O, ...args: Parameters<DeliveryQueue[O]>): ReturnType<DeliveryQueue[O]> {
    const { thread, pending } = started();
    const id = nextId++;
    const answer = new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
    });
    thread.ref();
    thread.postMessage({ id, operation, args } satisfies OffLoopCall);
    return answer as ReturnType<DeliveryQueue[O]>;
  }

  return {
    ...inLoop,
    claim: (request) => call('claim', request),
    settle: (owner, settlements, now) => call('settle', owner, settlements, now),
    settleAndClaim: (settlements, request) => call('settleAndClaim', settlements, request),
    nextDueAt: () => call('nextDueAt'),
    settleAndRecheck: (settlements, owner, held, now) => call('settleAndRecheck', settlements, owner, held, now),
    renewLeases: (owner, ids, until) => call('renewLeases', owner, ids, until),
    release: (owner) => call('release', owner),
    prune: (before, limit) => call('prune', before, limit),
    expireWaiting: (now, maxAgeMs, limit) => call('expireWaiting', now, maxAgeMs, limit),
    async close() {
      if (!current) return;
      const { thread, exited } = current;
      thread.ref();
      thread.postMessage('close');
      await exited;
    },
  };
}
