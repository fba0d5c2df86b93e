import { describe, expect, it } from 'vitest';
import { newDeliveryId } from './delivery-ids.ts';

describe('delivery ids', () => {
  it('are UUIDs of version 7, each ordered after the one before, so the indexes keyed by them grow at their end', () => {
    const ids = Array.from({ length: 2000 }, () => newDeliveryId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
