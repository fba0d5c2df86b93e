// Runs async work one piece at a time, in the order asked: the SQLite store's one connection must
// not run another request's statements inside an open transaction.
export class AsyncMutex {
  #tail: Promise<unknown> = Promise.resolve();
  /** Pieces of work asked for and not finished. */
  #pending = 0;
  readonly #done = () => {
    this.#pending -= 1;
  };

  run<T>(work: () => Promise<T> | T): Promise<T> {
    this.#pending += 1;
    const result = this.#tail.then(work);
    this.#tail = result.then(this.#done, this.#done);
    return result;
  }

  /**
   * Synchronous work (one statement) runs at once when nothing runs or waits, rather than a turn of
   * the microtask queue later: the order asked is kept, and a cached GET's read costs less.
   */
  runNow<T>(work: () => T | Promise<T>): Promise<T> {
    if (this.#pending > 0) return this.run(work);
    // A throw becomes the returned promise's rejection, as in run().
    return new Promise<T>((resolve) => {
      resolve(work());
    });
  }
}
