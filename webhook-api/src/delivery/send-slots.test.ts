// A rate-limited delivery waits for its reserved slot; one missed by more than the allowed lateness
// (the process was too busy) is given up for a slot reserved anew, once, so that requests sent late
// never bunch together past the rate.
import { describe, expect, it } from 'vitest';
import { latestAfterSlotMs, untilSlot, type SendSlot } from './send-slots.ts';

/** A slot at `at`, whose re-reservations answer `again` in turn, counted. */
function slotAt(at: number | undefined, ...again: (number | undefined)[]) {
  const reserved: (number | undefined)[] = [];
  const slot: SendSlot = {
    at: Promise.resolve(at),
    again: () => {
      const next = again[reserved.length];
      reserved.push(next);
      return Promise.resolve(next);
    },
  };
  return { slot, reserved };
}

const running = () => new AbortController().signal;

describe('untilSlot', () => {
  it('allows half the slot interval of lateness, 25 ms at least', () => {
    expect(latestAfterSlotMs(10)).toBe(50);
    expect(latestAfterSlotMs(1)).toBe(500);
    expect(latestAfterSlotMs(1000)).toBe(25);
  });

  it('sends in a slot it reaches in time, and in one late by no more than allowed, reserving nothing', async () => {
    const start = Date.now();
    const onTime = slotAt(start + 20);
    expect(await untilSlot(onTime.slot, Date.now, running(), 50)).toBe(true);
    expect(Date.now()).toBeGreaterThanOrEqual(start + 20);
    const now = () => start;
    const late = slotAt(start - 40);
    expect(await untilSlot(late.slot, now, running(), 50)).toBe(true);
    expect([onTime.reserved, late.reserved]).toEqual([[], []]);
  });

  it('gives up a slot missed by more than allowed for one reserved anew, and waits for that one', async () => {
    const start = Date.now();
    const now = () => start;
    const missed = slotAt(start - 60, start + 30);
    expect(await untilSlot(missed.slot, now, running(), 50)).toBe(true);
    expect(Date.now()).toBeGreaterThanOrEqual(start + 30);
    expect(missed.reserved).toEqual([start + 30]);
  });

  it('gives up a slot whose timer fired late (the process was busy meanwhile)', async () => {
    const start = Date.now();
    // The clock jumps 300 ms while the delivery waits for its slot, as a busy event loop would make it.
    const clock = () => Date.now() + (Date.now() - start >= 10 ? 300 : 0);
    const slow = slotAt(start + 20, start + 340);
    expect(await untilSlot(slow.slot, clock, running(), 50)).toBe(true);
    expect(slow.reserved).toEqual([start + 340]);
  });

  it('reserves anew only once: a second miss in a row sends all the same', async () => {
    const start = Date.now();
    const twice = slotAt(start - 200, start - 100, start - 50);
    expect(await untilSlot(twice.slot, () => start, running(), 50)).toBe(true);
    expect(twice.reserved).toEqual([start - 100]);
  });

  it('sends at once when the configuration has no limit any more, and not at all once stopped', async () => {
    expect(await untilSlot(slotAt(undefined).slot, Date.now, running(), 50)).toBe(true);
    const stop = new AbortController();
    const waiting = untilSlot(slotAt(Date.now() + 10_000).slot, Date.now, stop.signal, 50);
    stop.abort();
    expect(await waiting).toBe(false);
  });
});
