// Request states already answered: each state's nonce is spent the first time the state comes back,
// so a state cannot be answered twice (a captured "yes, delete it" replayed, two answers racing).
// In this process's memory for one gateway; in PostgreSQL for replicas (postgres-spent-states.ts).
import { LRUCache } from 'lru-cache';

export interface SpentStates {
  /** True the first time `nonce` is spent; false every later time, until it expires at `expiresAt` (epoch ms). */
  spend(nonce: string, expiresAt: number): Promise<boolean>;
  close(): Promise<void>;
}

/** More than the states one gateway hands out in their lifetime; the oldest go first past it. */
const maxRemembered = 200_000;

/** Spent states in memory, each kept until its state would have expired anyway. */
export function createMemorySpentStates(clock: () => number = Date.now): SpentStates {
  // Bounded by maxSize rather than max: an LRU given max allocates its storage for all of them at
  // once (8.8 MB for 200,000, held for the process's life however few questions are answered).
  // ttlResolution 0: the clock is read at every check, not reused for a millisecond (a test's clock
  // moves in steps).
  const spent = new LRUCache<string, true>({ maxSize: maxRemembered, sizeCalculation: () => 1, perf: { now: clock }, ttlResolution: 0 });
  return {
    spend(nonce, expiresAt) {
      if (spent.has(nonce)) return Promise.resolve(false);
      spent.set(nonce, true, { ttl: Math.max(1, expiresAt - clock()) });
      return Promise.resolve(true);
    },
    close() {
      spent.clear();
      return Promise.resolve();
    },
  };
}
