import { describe, expect, it } from 'vitest';
import { defaultRetrySchedule, maxRetryAfterMs, nextRetryDelay, parseDuration, parseDurationList, parseRetryAfter } from './retry-schedule.ts';

const now = new Date('2025-03-04T05:06:07.000Z');

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['120', 120_000],
    [' 7 ', 7_000],
    ['Tue, 04 Mar 2025 05:07:07 GMT', 60_000],
    ['Tuesday, 04-Mar-25 05:06:37 GMT', 30_000],
    ['Tue Mar  4 05:06:17 2025', 10_000],
    ['Tue, 04 Mar 2025 05:00:00 GMT', 0],
  ])('reads %j as %i ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  it.each([undefined, '', '-5', '1.5', '5s', 'soon', 'tomorrow 2', 'Tue, 31 Feb 2025 05:07:07 GMT', 'Tue, 04 Mar 2025 25:07:07 GMT', '2025-03-04T05:07:07Z'])(
    'ignores %j',
    (value) => {
      expect(parseRetryAfter(value, now)).toBeUndefined();
    },
  );

  it('caps an absurd delay', () => {
    expect(parseRetryAfter('99999999999999999999', now)).toBe(maxRetryAfterMs);
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', now)).toBe(maxRetryAfterMs);
  });
});

describe('defaultRetrySchedule', () => {
  it('is eight attempts over about 27.6 hours, as Svix publishes', () => {
    expect(defaultRetrySchedule).toHaveLength(7);
    const total = defaultRetrySchedule.reduce((sum, delay) => sum + delay, 0);
    expect(total).toBe(((27 * 60 + 35) * 60 + 5) * 1000);
  });
});

describe('nextRetryDelay', () => {
  const middle = (): number => 0.5;

  it('follows the schedule without jitter at the middle of the range', () => {
    const delays = defaultRetrySchedule.map((_, index) => nextRetryDelay({ failedAttempts: index + 1, random: middle }));
    expect(delays).toEqual(defaultRetrySchedule);
  });

  it('is spent after the last step', () => {
    expect(nextRetryDelay({ failedAttempts: 8 })).toBeUndefined();
    expect(nextRetryDelay({ failedAttempts: 3, schedule: [1_000, 2_000] })).toBeUndefined();
  });

  it('moves a delay by at most the jitter fraction either way', () => {
    expect(nextRetryDelay({ failedAttempts: 2, random: () => 0 })).toBe(240_000);
    expect(nextRetryDelay({ failedAttempts: 2, random: () => 0.99 })).toBe(358_800);
    expect(nextRetryDelay({ failedAttempts: 2, jitter: 0, random: () => 0 })).toBe(300_000);
  });

  it('waits as long as Retry-After asks when that is longer than the step', () => {
    expect(nextRetryDelay({ failedAttempts: 1, retryAfterMs: 60_000, random: middle })).toBe(60_000);
    expect(nextRetryDelay({ failedAttempts: 3, retryAfterMs: 60_000, random: middle })).toBe(1_800_000);
  });

  it('never follows Retry-After past the longest step', () => {
    expect(nextRetryDelay({ failedAttempts: 1, retryAfterMs: 7 * 86_400_000, random: middle })).toBe(36_000_000);
    expect(nextRetryDelay({ failedAttempts: 1, schedule: [1_000, 5_000], retryAfterMs: 60_000, random: middle })).toBe(5_000);
  });

  it('refuses nonsense input', () => {
    expect(() => nextRetryDelay({ failedAttempts: 0 })).toThrow('failedAttempts must be a whole number of at least 1 (got 0)');
    expect(() => nextRetryDelay({ failedAttempts: 1, jitter: 1.5 })).toThrow('jitter must be from 0 to 1 (got 1.5)');
    expect(() => nextRetryDelay({ failedAttempts: 1, jitter: Number.NaN })).toThrow('jitter must be from 0 to 1');
    expect(nextRetryDelay({ failedAttempts: 1, jitter: 1, random: () => 0 })).toBe(0);
  });
});

describe('parseDuration', () => {
  it.each([
    ['250ms', 250],
    ['30s', 30_000],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['1.5h', 5_400_000],
    [' 0s ', 0],
  ])('reads %j as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    ['30', '"30" needs a unit: ms, s, m, h or d (e.g. 30s)'],
    ['', 'a duration is empty'],
    ['5x', '"5x" is not a duration (a number and a unit: ms, s, m, h or d, e.g. 30s)'],
    ['-5s', '"-5s" is not a duration'],
    ['5 s', '"5 s" is not a duration'],
    ['1e9999d', '"1e9999d" is not a duration'],
    ['99999999999999999999d', '"99999999999999999999d" is too long'],
  ])('refuses %j', (text, message) => {
    expect(() => parseDuration(text)).toThrow(message);
  });
});

describe('parseDurationList', () => {
  it('reads a schedule', () => {
    expect(parseDurationList('5s, 5m,30m,2h')).toEqual([5_000, 300_000, 1_800_000, 7_200_000]);
  });

  it('names the bad entry by position', () => {
    expect(() => parseDurationList('5s,5m,,2h')).toThrow('entry 3: a duration is empty');
    expect(() => parseDurationList('5s,ten')).toThrow('entry 2: "ten" is not a duration');
    expect(() => parseDurationList('  ')).toThrow('the list is empty');
  });
});
