// A clock a test moves by hand, for lifetimes and expiries without waiting. It is also the Timers of
// what it times: a timer armed on it fires, in the order of its time, as `advance` passes that time.
import type { Clock } from '../time/clock.ts';
import type { Timers } from '../time/timers.ts';

/** A clock the test moves; it fires the timers armed on it as it passes them. */
export interface ManualClock extends Clock, Timers {
  /** Moves the time on by `ms`, firing every timer due by then, each with the clock at its own time. */
  advance(ms: number): void;
  /** Milliseconds from now until each armed timer fires, soonest first. */
  pendingTimers(): number[];
}

/** A `ManualClock` starting at `start` (milliseconds). */
export function manualClock(startMs = Date.UTC(2026, 10, 22, 12)): ManualClock {
  let now = startMs;
  let armedSoFar = 0;
  // In the order armed, so that timers due at the same time fire in that order.
  const armed = new Map<number, { readonly at: number; readonly callback: () => void }>();
  const clock = (() => now) as ManualClock;
  clock.after = (ms, callback) => {
    const id = (armedSoFar += 1);
    armed.set(id, { at: now + Math.max(0, ms), callback });
    return () => {
      armed.delete(id);
    };
  };
  clock.advance = (ms) => {
    const target = now + ms;
    for (;;) {
      let due: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of armed) if (entry[1].at <= target && (due === undefined || entry[1].at < due[1].at)) due = entry;
      if (due === undefined) break;
      armed.delete(due[0]);
      now = due[1].at;
      due[1].callback();
    }
    now = target;
  };
  clock.pendingTimers = () => [...armed.values()].map((timer) => timer.at - now).sort((a, b) => a - b);
  return clock;
}
