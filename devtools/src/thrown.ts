// The error a call throws, of the class a test of a refusal expects: the test fails when the call
// returns or throws anything else, rather than going on with the wrong error. The synchronous
// counterpart of rejectionOf (@platform/tool-sdk/testing).

/** The `kind` error `run` throws; rethrows any other, and throws when `run` returns. */
export function thrownBy<E extends Error>(run: () => unknown, kind: abstract new (...args: never[]) => E): E {
  try {
    run();
  } catch (error) {
    if (error instanceof kind) return error;
    throw error;
  }
  throw new Error(`expected a ${kind.name}, and the call returned`);
}
