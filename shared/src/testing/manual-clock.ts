// A clock a test moves by hand, for lifetimes and expiries without waiting.
import type { Clock } from '../clock.ts';

export interface ManualClock extends Clock {
  advance(ms: number): void;
}

export function manualClock(startMs = Date.UTC(2026, 10, 22, 12)): ManualClock {
  let now = startMs;
  const clock = (() => now) as ManualClock;
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}
