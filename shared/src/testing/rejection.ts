// The error a promise rejects with, of the class a test of a refusal expects: the test fails when the
// promise resolves or rejects with anything else, rather than going on with the wrong error.

/** The `kind` error `promise` rejects with; rethrows any other, and throws when it resolves. */
export async function rejectionOf<E extends Error>(promise: Promise<unknown>, kind: abstract new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof kind) return error;
    throw error;
  }
  throw new Error(`expected a ${kind.name}, and the promise resolved`);
}
