// The timers a component arms (the registry's next expiry, a registration's next heartbeat, a call's
// deadline), injected beside its Clock: a test fires them by moving a manual clock, not by waiting.
/** Where timeouts are armed: the system's, or a test's manual clock. */
export interface Timers {
  /** Calls `callback` once, `ms` from now; the returned function cancels it (a no-op once it ran). */
  after(ms: number, callback: () => void): () => void;
}

/** Node's timers, unref'd: a pending wait never holds the process open on its own; a component's servers do. */
export const systemTimers: Timers = {
  after(ms, callback) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return () => {
      clearTimeout(timer);
    };
  },
};
