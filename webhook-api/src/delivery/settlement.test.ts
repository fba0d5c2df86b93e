import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../queue/delivery-queue.ts';
import { storedConfig } from '../../test/stored-config.ts';
import type { AttemptResult } from './outgoing.ts';
import { settlementOf } from './settlement.ts';

const config = storedConfig({ id: 'cfg' });
const delivery = (attempts: number, acceptedAt = 0): ClaimedDelivery => ({
  id: 'd-1',
  config,
  mode: 'Realtime',
  gatewayId: 'gw',
  measurement: 'm',
  webhookId: 'msg_d-1',
  points: ['{}', '{}'],
  attempts,
  acceptedAt,
});
const settings = { retrySchedule: [1_000, 60_000], retryJitter: 0, maxAgeMs: 3_600_000 };
const failedWith = (retryAfterMs?: number): AttemptResult => ({
  outcome: 'retrying',
  status: 503,
  error: 'HTTP 503',
  retryAfterMs,
  durationMs: 7,
  responsePrefix: 'busy',
});
const at = 10_000;

describe('the settlement of an attempt', () => {
  it('records a 2xx as delivered, with what the attempt was', () => {
    const result: AttemptResult = { outcome: 'delivered', status: 204, durationMs: 3, responsePrefix: '' };
    expect(settlementOf({ delivery: delivery(0), result, startedAt: 9_990, now: at, settings })).toEqual({
      id: 'd-1',
      outcome: 'delivered',
      attempt: 0,
      status: 204,
      error: null,
      responseBody: '',
      startedAt: 9_990,
      durationMs: 3,
      pointCount: 2,
      endpoint: { configId: 'cfg', wasFailing: false },
    });
  });

  it('records a dropped attempt as dropped, never to be tried again', () => {
    const result: AttemptResult = { outcome: 'dropped', status: 410, error: 'HTTP 410', durationMs: 3, responsePrefix: 'gone' };
    const settlement = settlementOf({ delivery: delivery(0), result, startedAt: at, now: at, settings });
    expect(settlement).toMatchObject({ outcome: 'dropped', error: 'HTTP 410', status: 410, responseBody: 'gone' });
    expect(settlement.nextAttemptAt).toBeUndefined();
  });

  it('queues a failed attempt again at the schedule’s step for the attempts made', () => {
    expect(settlementOf({ delivery: delivery(0), result: failedWith(), startedAt: at, now: at, settings })).toMatchObject({
      outcome: 'retrying',
      error: 'HTTP 503',
      nextAttemptAt: at + 1_000,
    });
    expect(settlementOf({ delivery: delivery(1), result: failedWith(), startedAt: at, now: at, settings })).toMatchObject({ nextAttemptAt: at + 60_000 });
  });

  it('honours Retry-After over a shorter step, within the schedule’s longest', () => {
    expect(settlementOf({ delivery: delivery(0), result: failedWith(30_000), startedAt: at, now: at, settings }).nextAttemptAt).toBe(at + 30_000);
    expect(settlementOf({ delivery: delivery(0), result: failedWith(86_400_000), startedAt: at, now: at, settings }).nextAttemptAt).toBe(at + 60_000);
  });

  it('fails the delivery once the schedule is spent, saying after how many attempts', () => {
    expect(settlementOf({ delivery: delivery(2), result: failedWith(), startedAt: at, now: at, settings })).toMatchObject({
      outcome: 'failed',
      error: 'HTTP 503; given up after 3 attempts',
    });
  });

  it('fails a delivery that would be older than its maximum age at its next attempt', () => {
    const old = delivery(1, at - settings.maxAgeMs + 30_000);
    expect(settlementOf({ delivery: old, result: failedWith(), startedAt: at, now: at, settings })).toMatchObject({
      outcome: 'failed',
      error: 'HTTP 503; given up after 2 attempts (too old to try again)',
    });
  });

  it('spreads retries by the jitter it is given', () => {
    const jittered = { ...settings, retryJitter: 0.5 };
    const low = settlementOf({ delivery: delivery(0), result: failedWith(), startedAt: at, now: at, settings: jittered, random: () => 0 });
    const high = settlementOf({ delivery: delivery(0), result: failedWith(), startedAt: at, now: at, settings: jittered, random: () => 1 });
    expect([low.nextAttemptAt, high.nextAttemptAt]).toEqual([at + 500, at + 1_500]);
  });

  it('pauses the endpoint after a 429 for its Retry-After, a second without one, at most a minute; no pause otherwise', () => {
    const tooMany = (retryAfterMs?: number): AttemptResult => ({ ...failedWith(retryAfterMs), status: 429 });
    const pauseOf = (result: AttemptResult) => settlementOf({ delivery: delivery(0), result, startedAt: at, now: at, settings }).endpoint?.pauseMs;
    expect(pauseOf(tooMany(5_000))).toBe(5_000);
    expect(pauseOf(tooMany())).toBe(1_000);
    expect(pauseOf(tooMany(3_600_000))).toBe(60_000);
    expect(pauseOf(failedWith(5_000))).toBeUndefined();
  });
});
