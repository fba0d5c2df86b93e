import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../queue/delivery-queue.ts';
import { createClaimPacing, logRoomOf } from './claim-pacing.ts';
import { createHeldClaims } from './held-claims.ts';
import { createInFlightTally } from './in-flight-tally.ts';

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

  it('reading a round ahead, sends a held point as each slot frees and reads again once a round of them has gone', () => {
    const held = new Map([['c', 5]]);
    const pacing = createClaimPacing(settings, { byConfig: held }, 2);
    pacing.claimed(3);
    const end = (left: number) => pacing.started(delivery(true), 0)({ at: 4, left, total: left + 1 });
    // 15 in flight and 5 held: 20 in hand of 32, a round not gone yet; the held go at once.
    expect(end(15)).toEqual({ claim: false, rows: false, send: true });
    expect(end(11)).toEqual({ claim: true, rows: false, send: true });
    held.clear();
    expect(end(15)).toEqual({ claim: true, rows: false, send: true });
  });

  it('gives the logs a round of the slots ahead, less what is in flight and held of them', () => {
    const tally = createInFlightTally();
    const held = createHeldClaims();
    const config = { id: 'c', companyId: 1, rateLimitPerSecond: null } as unknown as ClaimedDelivery['config'];
    for (let i = 0; i < 10; i++) tally.add(config);
    for (let i = 0; i < 6; i++) held.add({ ...delivery(true), id: `h${i}`, config });
    held.add({ ...delivery(false), id: 'row', config });
    expect(logRoomOf(settings, tally, held, 2)).toMatchObject({ limit: 128 - 10 - 6, perConfig: 32, perCompany: 64, inFlight: new Map([['c', 17]]) });
    expect(logRoomOf(settings, tally, held)).toMatchObject({ limit: 64 - 10 - 6, perConfig: 16, perCompany: 32 });
  });

  it('counts the logged points in flight, for the settlements that wait for their endpoint’s next read', () => {
    const pacing = createClaimPacing(settings, { byConfig: new Map() });
    const ends = [pacing.started(delivery(true), 0), pacing.started(delivery(false), 0)];
    expect(pacing.loggedInFlight).toBe(1);
    for (const end of ends) end({ at: 1, left: 10, total: 10 });
    expect(pacing.loggedInFlight).toBe(0);
  });
});
