import { describe, expect, it } from 'vitest';
import { AsyncMutex } from './async-mutex.ts';

describe('the SQLite connection’s mutex', () => {
  it('runs a statement at once when the connection is free, and after the transaction that holds it otherwise, in the order asked', async () => {
    const mutex = new AsyncMutex();
    const order: string[] = [];
    const free = mutex.runNow(() => order.push('free'));
    expect(order).toEqual(['free']);
    await free;
    let commit = (): void => undefined;
    const transaction = mutex.run(async () => {
      order.push('begin');
      await new Promise<void>((resolve) => (commit = resolve));
      order.push('commit');
    });
    const waiting = mutex.runNow(() => order.push('after'));
    await Promise.resolve();
    expect(order).toEqual(['free', 'begin']);
    commit();
    await Promise.all([transaction, waiting]);
    expect(order).toEqual(['free', 'begin', 'commit', 'after']);
    expect(mutex.runNow(() => order.push('free again'))).toBeInstanceOf(Promise);
    expect(order.at(-1)).toBe('free again');
  });

  it('answers a statement’s failure as a rejection, and the next one still runs', async () => {
    const mutex = new AsyncMutex();
    await expect(
      mutex.runNow(() => {
        throw new Error('no such table');
      }),
    ).rejects.toThrow('no such table');
    expect(await mutex.runNow(() => 1)).toBe(1);
  });
});
