// Runs async work one piece at a time, in the order asked: the SQLite store's one connection must
// not run another request's statements inside an open transaction.
export class AsyncMutex {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T> | T): Promise<T> {
    const result = this.#tail.then(work);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
