import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../queue/delivery-queue.ts';
import { storedConfig } from '../../test/stored-config.ts';
import { createHeldDeliveries } from './held-deliveries.ts';

const delivery = (id: string, configId = 'cfg', companyId = 1): ClaimedDelivery => ({
  id,
  webhookId: `msg_${id}`,
  config: storedConfig({ id: configId, companyId }),
  mode: 'Realtime',
  gatewayId: 'gw',
  measurement: 'm',
  points: ['{}'],
  attempts: 0,
  acceptedAt: 0,
});

describe('deliveries held ahead of sending', () => {
  it('starts them oldest first per endpoint until the endpoint has no room, and counts what is left by endpoint and company', () => {
    const held = createHeldDeliveries({ maxPerEndpoint: 10, maxAgeMs: 500 });
    held.hold([delivery('a1', 'a'), delivery('a2', 'a'), delivery('a3', 'a'), delivery('b1', 'b', 2)], 1000);
    const started: string[] = [];
    let roomOfA = 2;
    held.dispatch((d) => {
      if (d.config.id === 'a' && roomOfA === 0) return false;
      if (d.config.id === 'a') roomOfA -= 1;
      started.push(d.id);
      return true;
    });
    expect(started).toEqual(['a1', 'a2', 'b1']);
    expect([held.size(), held.byConfig('a'), held.byConfig('b'), held.byCompany(1), held.byCompany(2)]).toEqual([1, 1, 0, 1, 0]);
    expect(held.ids()).toEqual(['a3']);
  });

  it('holds none past the staleness bound: those claimed longer ago are taken to be given back, the younger stay', () => {
    const held = createHeldDeliveries({ maxPerEndpoint: 10, maxAgeMs: 500 });
    held.hold([delivery('old')], 1000);
    held.hold([delivery('young')], 1400);
    expect(held.takeStale(1500)).toEqual([]);
    expect(held.takeStale(1501).map((d) => d.id)).toEqual(['old']);
    expect(held.ids()).toEqual(['young']);
    expect(held.takeStale(1901).map((d) => d.id)).toEqual(['young']);
    expect(held.size()).toBe(0);
  });

  it('wants ahead half of what the endpoint finished in the last span of the bound, at most the limit, and none for one it has not heard from', () => {
    const held = createHeldDeliveries({ maxPerEndpoint: 8, maxAgeMs: 500 });
    expect(held.target('slow', 0)).toBe(0);
    for (let i = 0; i < 6; i++) held.finished('slow', 100);
    expect(held.target('slow', 100)).toBe(3);
    for (let i = 0; i < 100; i++) held.finished('fast', 100);
    expect(held.target('fast', 100)).toBe(8);
    // A span later its pace is what it finished in the span before; two spans of silence, none.
    expect(held.target('slow', 700)).toBe(3);
    expect(held.target('slow', 1200)).toBe(0);
    expect(held.low('fast', 100)).toBe(true);
    held.hold(
      Array.from({ length: 5 }, (_, i) => delivery(`f${i}`, 'fast')),
      100,
    );
    expect(held.low('fast', 100)).toBe(false);
  });
});
