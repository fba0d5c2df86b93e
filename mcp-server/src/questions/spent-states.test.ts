import { manualClock } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { createMemorySpentStates } from './spent-states.ts';

const ttlMs = 10 * 60_000;

describe('spent request states in memory', () => {
  it('spends a nonce the first time only', async () => {
    const clock = manualClock();
    const spent = createMemorySpentStates(clock);
    expect(await spent.spend('nonce-1', clock() + ttlMs)).toBe(true);
    expect(await spent.spend('nonce-1', clock() + ttlMs)).toBe(false);
    expect(await spent.spend('nonce-1', clock() + ttlMs)).toBe(false);
  });

  it('still refuses a nonce just before its state expires', async () => {
    const clock = manualClock();
    const spent = createMemorySpentStates(clock);
    await spent.spend('nonce-1', clock() + ttlMs);
    clock.advance(ttlMs - 1);
    expect(await spent.spend('nonce-1', clock() + ttlMs)).toBe(false);
  });

  it('forgets a nonce once its state has expired, so it spends again', async () => {
    const clock = manualClock();
    const spent = createMemorySpentStates(clock);
    expect(await spent.spend('nonce-1', clock() + ttlMs)).toBe(true);
    clock.advance(ttlMs + 1);
    expect(await spent.spend('nonce-1', clock() + ttlMs)).toBe(true);
    expect(await spent.spend('nonce-1', clock() + ttlMs)).toBe(false);
  });

  it('refuses a replay until the state expires, then spends the nonce again', async () => {
    const clock = manualClock();
    const spent = createMemorySpentStates(clock);
    expect(await spent.spend('nonce-1', clock() + ttlMs)).toBe(true);
    expect(await spent.spend('nonce-1', clock() + ttlMs)).toBe(false);
    clock.advance(ttlMs + 1);
    expect(await spent.spend('nonce-1', clock() + ttlMs)).toBe(true);
  });

  it('keeps many nonces apart', async () => {
    const clock = manualClock();
    const spent = createMemorySpentStates(clock);
    const nonces = Array.from({ length: 500 }, (_, index) => `nonce-${index}`);
    expect(await Promise.all(nonces.map((nonce) => spent.spend(nonce, clock() + ttlMs)))).toEqual(nonces.map(() => true));
    expect(await Promise.all(nonces.map((nonce) => spent.spend(nonce, clock() + ttlMs)))).toEqual(nonces.map(() => false));
    expect(await spent.spend('nonce-500', clock() + ttlMs)).toBe(true);
  });

  it('keeps each nonce until its own expiry', async () => {
    const clock = manualClock();
    const spent = createMemorySpentStates(clock);
    await spent.spend('short', clock() + 1_000);
    await spent.spend('long', clock() + ttlMs);
    clock.advance(1_001);
    expect(await spent.spend('short', clock() + ttlMs)).toBe(true);
    expect(await spent.spend('long', clock() + ttlMs)).toBe(false);
  });

  it('forgets every nonce when closed', async () => {
    const clock = manualClock();
    const spent = createMemorySpentStates(clock);
    await spent.spend('nonce-1', clock() + ttlMs);
    await spent.close();
    expect(await spent.spend('nonce-1', clock() + ttlMs)).toBe(true);
  });
});
