import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../queue/delivery-queue.ts';
import { createClaimPacing } from './claim-pacing.ts';

const settings = { maxInFlight: 64, maxInFlightPerEndpoint: 16, maxInFlightPerCompany: 32 };
const delivery = (logged: boolean) => ({ id: 'd', config: { id: 'c', companyId: 1, rateLimitPerSecond: null }, logged }) as unknown as ClaimedDelivery;

describe('claim pacing', () => {
  it('reads a logged endpoint again from half its slots free while reads are quick against requests', () => {
    const pacing = createClaimPacing(settings, { byConfig: new Map() });
    pacing.claimed(0.1);
    const end = (left: number) => pacing.started(delivery(true), 0)({ at: 5, left, total: left + 1 });
    expect(end(9)).toEqual({ claim: false, rows: false, send: false });
    expect(end(8)).toEqual({ claim: true, rows: false, send: true });
    expect(pacing.loggedInFlight).toBe(0);
  });

  it('reads it again from a quarter free where a read takes long against a request (a database a round trip away)', () => {
    const pacing = createClaimPacing(settings, { byConfig: new Map() });
    pacing.claimed(3);
    const end = (left: number) => pacing.started(delivery(true), 0)({ at: 4, left, total: left + 1 });
    expect(end(13)).toMatchObject({ claim: false });
    expect(end(12)).toEqual({ claim: true, rows: false, send: true });
  });

  it('looks at the rows when a row endpoint is down to half of what it holds, and when nothing is in flight', () => {
    const pacing = createClaimPacing(settings, { byConfig: new Map([['c', 2]]) });
    expect(pacing.started(delivery(false), 0)({ at: 1, left: 30, total: 31 })).toMatchObject({ claim: true, rows: true });
    expect(pacing.started(delivery(false), 0)({ at: 1, left: 20, total: 21 })).toMatchObject({ claim: false, rows: false });
    expect(pacing.started(delivery(true), 0)({ at: 1, left: 0, total: 0 })).toEqual({ claim: true, rows: true, send: true });
  });

  it('counts the logged points in flight, for the settlements that wait for their endpoint’s next read', () => {
    const pacing = createClaimPacing(settings, { byConfig: new Map() });
    const ends = [pacing.started(delivery(true), 0), pacing.started(delivery(false), 0)];
    expect(pacing.loggedInFlight).toBe(1);
    for (const end of ends) end({ at: 1, left: 10, total: 10 });
    expect(pacing.loggedInFlight).toBe(0);
  });
});
