// What ends a tool's run before its handler answers: the call's signal, or a question the handler
// waits on. The runner races the handler's promise against one interruption made per call.
const askedMark = Symbol('asked');

/**
 * What ends a run before its handler does: its signal aborted (a rejection with the signal's
 * reason, so a handler that ignores the signal does not hold the answer), or a question it waits on
 * (the mark, one turn of the event loop after the first question, so questions asked together with
 * Promise.all go out together). One promise for both, made once per call.
 */
export function interruption(signal: AbortSignal): { readonly promise: Promise<typeof askedMark>; readonly asked: () => void } {
  const { promise, resolve, reject } = Promise.withResolvers<typeof askedMark>();
  if (signal.aborted) reject(signal.reason as Error);
  else
    signal.addEventListener(
      'abort',
      () => {
        reject(signal.reason as Error);
      },
      { once: true },
    );
  // A run answered before anything interrupts it leaves the promise unsettled: no unhandled rejection if it is aborted later.
  promise.catch(() => undefined);
  return {
    promise,
    asked: () => {
      setImmediate(() => {
        resolve(askedMark);
      });
    },
  };
}

/** What the handler answered, or what interrupted it. A handler that answered at once (no promise) needs no race: the runner checks the signal and the questions right after. */
export function untilInterrupted(answer: unknown, interrupted: Promise<typeof askedMark>): unknown {
  if (typeof (answer as { then?: unknown } | null)?.then !== 'function') return answer;
  return Promise.race([answer, interrupted]);
}
