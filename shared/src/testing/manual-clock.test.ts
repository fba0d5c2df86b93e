// The manual clock that stands in for time in the tests: what it fires, when, and in what order.
import { describe, expect, it } from 'vitest';
import { manualClock } from './manual-clock.ts';

describe('a manual clock', () => {
  it('moves only when told', () => {
    const clock = manualClock(1_000);
    expect(clock()).toBe(1_000);
    clock.advance(250);
    expect(clock()).toBe(1_250);
  });

  it('fires the timers armed on it as it passes their time, in order, each with the clock at its time', () => {
    const clock = manualClock(0);
    const fired: [string, number][] = [];
    clock.after(300, () => fired.push(['late', clock()]));
    clock.after(100, () => fired.push(['early', clock()]));
    clock.after(100, () => fired.push(['early, armed second', clock()]));
    expect(clock.pendingTimers()).toEqual([100, 100, 300]);

    clock.advance(99);
    expect(fired).toEqual([]);
    clock.advance(201);
    expect(fired).toEqual([
      ['early', 100],
      ['early, armed second', 100],
      ['late', 300],
    ]);
    expect(clock.pendingTimers()).toEqual([]);
  });

  it('fires a timer armed by another within the same advance, and never a cancelled one', () => {
    const clock = manualClock(0);
    const fired: number[] = [];
    clock.after(10, () => clock.after(10, () => fired.push(clock())));
    const cancel = clock.after(15, () => fired.push(-1));
    cancel();
    clock.advance(30);
    expect(fired).toEqual([20]);
    expect(clock()).toBe(30);
  });
});
