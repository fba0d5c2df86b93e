import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { newStoreLocation, type Backend, type StoreLocation } from '../../test/harness.ts';
import { storedConfig } from '../../test/stored-config.ts';
import type { WebhookDatabase } from '../database.ts';
import type { StoredConfig } from '../store/records.ts';
import type { QueuedPoint } from './delivery-queue.ts';

const point = (deviceId: number, connectionTag: string): QueuedPoint => ({
  deviceId,
  gatewayId: 'gw-1',
  connectionTag,
  measurement: 'temperature',
  point: JSON.stringify({ Measurement: 'temperature', Fields: { value: 1 }, Tags: {}, UtcTimestamp: '2026-11-22T12:00:00.000Z' }),
});
const claimAll = { leaseMs: 10_000, limit: 100, perConfig: 16, inFlight: new Map<string, number>() };

describe.each<Backend>(['SQLite', 'PostgreSQL'])('rate limits on %s', (backend) => {
  let location: StoreLocation;
  let store: WebhookDatabase;
  const now = 1_000_000;
  beforeEach(async () => {
    location = await newStoreLocation(backend, inject('postgresUrl'), { copySchema: true });
    store = await location.open();
  });
  afterEach(async () => {
    await store.close();
  });

  async function linked(rateLimitPerSecond: number | null, connectionTag: string): Promise<StoredConfig> {
    const created = await store.createConfig(storedConfig({ url: 'http://127.0.0.1:9/hook', rateLimitPerSecond }));
    if (created === 'limit-reached') throw new Error('limit');
    if (!(await store.getLink(created.id, 7))) await store.linkDevice({ webhookConfigId: created.id, deviceId: 7, createdAt: new Date().toISOString() });
    await store.createScope(created.id, 7, { id: randomUUID(), scopeLevel: 'Connection', connectionTag, measurement: null, enabled: true });
    return created;
  }

  it('is stored with the configuration, and changed or removed by an update', async () => {
    const config = await linked(20, 'a');
    expect((await store.getConfig(config.id))?.rateLimitPerSecond).toBe(20);
    expect((await store.updateConfig(config.id, (c) => ({ ...c, rateLimitPerSecond: 5 })))?.rateLimitPerSecond).toBe(5);
    expect((await store.updateConfig(config.id, (c) => ({ ...c, rateLimitPerSecond: null })))?.rateLimitPerSecond).toBeNull();
  });

  it('reserves send times 1/rate apart for every deliverer together, from now when the endpoint was idle', async () => {
    const config = await linked(10, 'a');
    const other = await location.open();
    try {
      const first = await store.deliveries.reserveSlots(config.id, 3, now);
      const second = await other.deliveries.reserveSlots(config.id, 2, now + 50);
      const third = await store.deliveries.reserveSlots(config.id, 1, now + 10_000);
      expect(first).toEqual([now, now + 100, now + 200]);
      expect(second).toEqual([now + 300, now + 400]);
      // Idle meanwhile: the next one goes at once.
      expect(third).toEqual([now + 10_000]);
    } finally {
      await other.close();
    }
  });

  it('reserves nothing for a configuration without a limit', async () => {
    const config = await linked(null, 'a');
    expect(await store.deliveries.reserveSlots(config.id, 2, now)).toBeUndefined();
  });

  it('claims at most a second’s worth of a rate-limited endpoint, less what the deliverer holds of it, and then passes over it to others', async () => {
    const slow = await linked(3, 'slow');
    const fast = await linked(null, 'fast');
    await store.deliveries.ingest(
      Array.from({ length: 100 }, () => point(7, 'slow')),
      now,
    );
    await store.deliveries.ingest([point(7, 'fast')], now + 1);
    // Each endpoint's log is read on its own: the slow one's backlog does not hide the fast one's point.
    const claimed = await store.deliveries.claim({ owner: 'a', now: now + 2, ...claimAll });
    expect(claimed.map((d) => d.config.id)).toEqual([slow.id, slow.id, slow.id, fast.id]);
    // Holding three of its three: none more.
    await store.deliveries.ingest([point(7, 'fast')], now + 3);
    const again = await store.deliveries.claim({
      owner: 'a',
      now: now + 4,
      ...claimAll,
      inFlight: new Map([[slow.id, 3]]),
      perConfigCaps: new Map([[slow.id, 3]]),
    });
    expect(again.map((d) => d.config.id)).toEqual([fast.id]);
  });

  it('pauses an endpoint that answered 429: nothing is claimed for it until then, and its next send time moves past it', async () => {
    const config = await linked(10, 'a');
    await store.deliveries.ingest([point(7, 'a'), point(7, 'a')], now);
    const [first] = await store.deliveries.claim({
      owner: 'a',
      now,
      ...claimAll,
      perConfigCaps: new Map([[config.id, 1]]),
      inFlight: new Map([[config.id, 0]]),
    });
    if (!first) throw new Error('claimed');
    await store.deliveries.settle(
      'a',
      [
        {
          id: first.id,
          outcome: 'retrying',
          nextAttemptAt: now + 60_000,
          attempt: 0,
          status: 429,
          error: 'the endpoint answered 429 Too Many Requests',
          responseBody: '',
          startedAt: now,
          durationMs: 10,
          pointCount: 1,
          endpoint: { configId: config.id, wasFailing: false, pauseMs: 5_000 },
        },
      ],
      now + 10,
    );
    expect((await store.getConfig(config.id))?.health.pausedUntil).toBe(now + 5_010);
    expect(await store.deliveries.claim({ owner: 'a', now: now + 5_000, ...claimAll })).toEqual([]);
    expect(await store.deliveries.claim({ owner: 'a', now: now + 5_011, ...claimAll })).toHaveLength(1);
    expect(await store.deliveries.reserveSlots(config.id, 1, now + 20)).toEqual([now + 5_010]);
  });
});
