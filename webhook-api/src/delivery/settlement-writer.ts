// Settlements written together: the ones that end in the same turn of the event loop, up to a
// chunk, one write at a time, or taken by the deliverer's next claim to be written in its
// transaction. An outage keeps them for the next try; any other refusal of a write is narrowed down
// to the settlements it is about, which are left out (their leases run out and they are attempted
// again), so one bad row never holds up the others.
import type { Logger } from '@platform/tool-sdk';
import type { DeliveryQueue, Settlement } from '../queue/delivery-queue.ts';
import { StoreUnavailableError } from '../store/store-unavailable.ts';

/** At most this many settlements in one write. */
const maxSettlementsPerWrite = 500;

export interface SettlementWriterOptions {
  readonly queue: DeliveryQueue;
  /** The deliverer whose leases the settlements are written under. */
  readonly owner: string;
  readonly log: Logger;
  readonly now: () => number;
  /** How long to wait before writing again after an outage. */
  readonly retryDelayMs: number;
  /** Whether to give up on an outage (the deliverer is stopping and its requests were cut short). */
  readonly givingUp: () => boolean;
  /** Told each time everything added so far is written (or given up). */
  readonly onDrained?: () => void;
  /**
   * While this says so, what waits is left for the deliverer's next claim to take (written in its
   * transaction, or with its statements), for at most `holdMs`.
   */
  readonly leaveForClaim?: () => boolean;
  /** How long settlements wait for a claim to take them before they are written on their own; default 20 ms. */
  readonly holdMs?: number;
}

export interface SettlementWriter {
  /** Adds a settlement; it is written once this turn of the event loop ends, or taken by a claim. */
  add(settlement: Settlement): void;
  /** Takes what waits, for a claim that writes it in its transaction; the claim then calls written or giveBack. */
  take(): Settlement[];
  /** What a claim wrote of what it took (the settled ids, as settle answers). */
  written(taken: readonly Settlement[], settled: ReadonlySet<string>): void;
  /** What a claim took and could not write: written on its own (a refusal narrowed down, an outage tried again). */
  giveBack(taken: readonly Settlement[]): void;
  /**
   * A queue call that also writes what waits (in its transaction, where it has one): taken, then
   * written, or given back if the call fails, when `undo` puts back what the call was for.
   */
  writeWith<T extends { readonly settled: ReadonlySet<string> }>(call: (settlements: Settlement[]) => Promise<T>, undo?: () => void): Promise<T>;
  /** Whether any are waiting or being written. */
  busy(): boolean;
  /** Writes what is waiting now. */
  flush(): Promise<void>;
}

export function createSettlementWriter(options: SettlementWriterOptions): SettlementWriter {
  const { queue, owner, log, now } = options;
  let pending: Settlement[] = [];
  let flushing: Promise<void> | undefined;
  let flushQueued = false;
  let holdTimer: NodeJS.Timeout | undefined;
  /** Settlements a claim has taken and not yet answered for. */
  let taken = 0;

  function reportLost(chunk: readonly Settlement[], settled: ReadonlySet<string>): void {
    const lost = chunk.filter((s) => !settled.has(s.id));
    if (lost.length > 0) {
      log.debug(
        { deliveryIds: lost.map((s) => s.id) },
        'settlements found no lease: the delivery was cancelled, or its lease ran out and another deliverer has it',
      );
    }
  }

  async function write(chunk: readonly Settlement[]): Promise<void> {
    try {
      reportLost(chunk, await queue.settle(owner, chunk, now()));
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      if (chunk.length === 1) {
        log.error({ err: error, deliveryId: chunk[0]?.id }, 'a settlement was refused by the database; the delivery will be attempted again');
        return;
      }
      const half = Math.ceil(chunk.length / 2);
      await write(chunk.slice(0, half));
      await write(chunk.slice(half));
    }
  }

  function flush(): Promise<void> {
    if (flushing) return flushing;
    flushing = (async () => {
      while (pending.length > 0) {
        const chunk = pending.slice(0, maxSettlementsPerWrite);
        try {
          await write(chunk);
          pending = pending.slice(chunk.length);
        } catch (error) {
          log.error({ err: error, pending: pending.length }, 'settlements could not be written; they are tried again');
          await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs));
          if (options.givingUp()) break;
        }
      }
    })().finally(() => {
      flushing = undefined;
      options.onDrained?.();
    });
    return flushing;
  }

  function flushSoon(): void {
    if (flushQueued) return;
    flushQueued = true;
    setImmediate(() => {
      flushQueued = false;
      if (options.leaveForClaim?.() === true) {
        // A claim is coming: it takes them; if none has within holdMs, they go on their own.
        holdTimer ??= setTimeout(() => {
          holdTimer = undefined;
          void flush();
        }, options.holdMs ?? 20);
        return;
      }
      void flush();
    });
  }

  function take(): Settlement[] {
    // Not while a write is under way: what it holds stays in order behind it.
    if (flushing) return [];
    const chunk = pending.splice(0, maxSettlementsPerWrite);
    taken += chunk.length;
    if (pending.length === 0 && holdTimer !== undefined) {
      clearTimeout(holdTimer);
      holdTimer = undefined;
    }
    return chunk;
  }

  function written(chunk: readonly Settlement[], settled: ReadonlySet<string>): void {
    taken -= chunk.length;
    reportLost(chunk, settled);
    if (pending.length === 0 && taken === 0 && !flushing) options.onDrained?.();
  }

  function giveBack(chunk: readonly Settlement[]): void {
    taken -= chunk.length;
    // At the end: a write under way takes its chunk from the front.
    pending.push(...chunk);
    flushSoon();
  }

  return {
    add(settlement) {
      pending.push(settlement);
      flushSoon();
    },
    take,
    written,
    giveBack,
    async writeWith(call, undo) {
      const chunk = take();
      try {
        const answer = await call(chunk);
        written(chunk, answer.settled);
        return answer;
      } catch (error) {
        giveBack(chunk);
        undo?.();
        throw error;
      }
    },
    busy: () => pending.length > 0 || taken > 0 || flushQueued || flushing !== undefined || holdTimer !== undefined,
    flush,
  };
}
