import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../queue/delivery-queue.ts';
import { createHeldClaims } from './held-claims.ts';

const delivery = (id: string, configId: string, logged: boolean) =>
  ({ id, config: { id: configId, companyId: 1, rateLimitPerSecond: null }, logged }) as unknown as ClaimedDelivery;
const ids = (deliveries: readonly ClaimedDelivery[]) => deliveries.map((d) => d.id);

describe('held claims', () => {
  it('puts back what was taken and not sent ahead of what its endpoint still holds, in order', () => {
    const held = createHeldClaims();
    for (const id of ['1', '2', '3', '4']) held.add(delivery(id, 'a', true));
    const taken = held.take(2, () => true);
    expect(ids(taken)).toEqual(['1', '2']);
    held.putBack(taken);
    expect(held.size).toBe(4);
    expect(held.logged).toBe(4);
    expect(held.byConfig.get('a')).toBe(4);
    expect(ids(held.take(10, () => true))).toEqual(['1', '2', '3', '4']);
    expect(held.size).toBe(0);
    expect(held.logged).toBe(0);
  });

  it('lets go of an endpoint’s log points only, keeping its rows and other endpoints’ points, each count with them', () => {
    const held = createHeldClaims();
    held.add(delivery('row', 'a', false));
    held.add(delivery('p1', 'a', true));
    held.add(delivery('p2', 'a', true));
    held.add(delivery('q1', 'b', true));
    expect(ids(held.letGoOfLog('a'))).toEqual(['p1', 'p2']);
    expect(held.size).toBe(2);
    expect(held.logged).toBe(1);
    expect(held.byConfig.get('a')).toBe(1);
    expect(held.byCompany.get(1)).toBe(2);
    expect(held.letGoOfLog('c')).toEqual([]);
    expect(ids(held.take(10, () => true))).toEqual(['row', 'q1']);
  });
});
