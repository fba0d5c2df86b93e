import { randomUUID } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { newStoreLocation, type Backend, type StoreLocation } from '../../test/harness.ts';
import { storedConfig } from '../../test/stored-config.ts';
import type { WebhookDatabase } from '../database.ts';
import type { StoredConfig } from '../store/records.ts';
import type { ClaimedDelivery, QueuedPoint, Settlement } from './delivery-queue.ts';

const point = (deviceId: number, seq: number, measurement = 'temperature'): QueuedPoint => ({
  deviceId,
  gatewayId: 'gw-1',
  connectionTag: 'modbus',
  measurement,
  point: JSON.stringify({ Measurement: measurement, Fields: { value: seq }, Tags: { seq: String(seq) }, UtcTimestamp: '2026-11-22T12:00:00.000Z' }),
});
const claimAll = { leaseMs: 10_000, limit: 100, perConfig: 100, inFlight: new Map<string, number>() };
/** The points' values a delivery carries. */
const seqsOf = (d: ClaimedDelivery) => d.points.map((p) => (JSON.parse(p) as { Fields: { value: number } }).Fields.value);

describe.each<Backend>(['SQLite', 'PostgreSQL'])('ordered delivery per device on %s', (backend) => {
  let location: StoreLocation;
  let store: WebhookDatabase;
  let now = 1_000_000;
  beforeEach(async () => {
    location = await newStoreLocation(backend, inject('postgresUrl'), { copySchema: true });
    store = await location.open({ batch: { maxPoints: 2, lingerMs: 0 } });
    now = 1_000_000;
  });
  afterEach(async () => {
    await store.close();
  });

  async function linked(overrides: Partial<StoredConfig>, devices = [7, 8]): Promise<StoredConfig> {
    const created = await store.createConfig(storedConfig({ url: 'http://127.0.0.1:9/hook', ordering: 'PerDevice', ...overrides }));
    if (created === 'limit-reached') throw new Error('limit');
    for (const device of devices) {
      await store.linkDevice({ webhookConfigId: created.id, deviceId: device, createdAt: new Date().toISOString() });
      await store.createScope(created.id, device, { id: randomUUID(), scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true });
    }
    return created;
  }
  const claim = (at = now, owner = 'a') => store.deliveries.claim({ owner, now: at, ...claimAll });
  function settle(delivery: ClaimedDelivery, outcome: Settlement['outcome'], at = now, owner = 'a') {
    return store.deliveries.settle(
      owner,
      [
        {
          id: delivery.id,
          outcome,
          attempt: delivery.attempts,
          status: outcome === 'delivered' ? 200 : 503,
          error: outcome === 'delivered' ? null : 'x',
          responseBody: '',
          startedAt: at,
          durationMs: 1,
          pointCount: delivery.points.length,
          ...(outcome === 'retrying' && { nextAttemptAt: at + 60_000 }),
          ...(delivery.stream && { stream: delivery.stream }),
          endpoint: { configId: delivery.config.id, wasFailing: false },
        },
      ],
      at,
    );
  }
  /** The claimed deliveries of `config`, by device: the seq each carries. */
  const byDevice = (claimed: ClaimedDelivery[], config: StoredConfig) => claimed.filter((d) => d.config.id === config.id).map((d) => [d.stream, seqsOf(d)]);

  it('sends a device’s deliveries one at a time in ingest order; a retrying one holds back its device only, not other devices nor configurations', async () => {
    const ordered = await linked({});
    const unordered = await linked({ ordering: 'None' });
    await store.deliveries.ingest([point(7, 0), point(8, 0), point(7, 1), point(7, 2), point(8, 1)], now);
    // The unordered configuration's five go at once; of the ordered one, each device's first.
    const first = await claim();
    expect(first.filter((d) => d.config.id === unordered.id)).toHaveLength(5);
    expect(byDevice(first, ordered)).toEqual([
      ['device 7', [0]],
      ['device 8', [0]],
    ]);
    expect(await claim()).toEqual([]);
    const [seven, eight] = first.filter((d) => d.config.id === ordered.id);
    if (!seven || !eight) throw new Error('claimed');
    // Device 7's head is delivered: its next goes. Device 8's waits for its retry: its next waits too.
    await settle(seven, 'delivered');
    await settle(eight, 'retrying');
    const second = await claim(now + 1);
    expect(byDevice(second, ordered)).toEqual([['device 7', [1]]]);
    await settle(second[0] as ClaimedDelivery, 'failed', now + 1);
    const third = await claim(now + 2);
    expect(byDevice(third, ordered)).toEqual([['device 7', [2]]]);
    await settle(third[0] as ClaimedDelivery, 'dropped', now + 2);
    expect(await claim(now + 3)).toEqual([]);
    // Device 8's head comes back at its retry time, and only once it is delivered does its next go.
    const retried = (await claim(now + 60_000)).filter((d) => d.config.id === ordered.id);
    expect(byDevice(retried, ordered)).toEqual([['device 8', [0]]]);
    await settle(retried[0] as ClaimedDelivery, 'delivered', now + 60_000);
    expect(byDevice(await claim(now + 60_001), ordered)).toEqual([['device 8', [1]]]);
  });

  it('keeps the order across a deliverer that died: its head is claimed again when its lease runs out, the later ones still wait', async () => {
    const ordered = await linked({});
    await store.deliveries.ingest([point(7, 0), point(7, 1)], now);
    expect(byDevice(await claim(now, 'dead'), ordered)).toEqual([['device 7', [0]]]);
    expect(await claim(now + 9_999, 'alive')).toEqual([]);
    const taken = await claim(now + 10_001, 'alive');
    expect(byDevice(taken, ordered)).toEqual([['device 7', [0]]]);
    await settle(taken[0] as ClaimedDelivery, 'delivered', now + 10_001, 'alive');
    expect(byDevice(await claim(now + 10_002, 'alive'), ordered)).toEqual([['device 7', [1]]]);
  });

  it('keeps a Batch configuration’s batches of a gateway and measurement in order, other streams going on', async () => {
    const ordered = await linked({ deliveryMode: 'Batch' });
    await store.deliveries.ingest([point(7, 0), point(8, 1), point(7, 2), point(8, 3), point(7, 4, 'pressure')], now);
    const first = await claim();
    expect(first.map((d) => [d.stream, seqsOf(d)])).toEqual([
      ['batch ["gw-1","temperature"]', [0, 1]],
      ['batch ["gw-1","pressure"]', [4]],
    ]);
    await settle(first[0] as ClaimedDelivery, 'retrying');
    expect(await claim(now + 1)).toEqual([]);
    // The pressure batch, never settled, is claimed again too once its lease ran out.
    const again = (await claim(now + 60_000)).find((d) => d.stream === 'batch ["gw-1","temperature"]');
    if (!again) throw new Error('the head is due again');
    await settle(again, 'delivered', now + 60_000);
    expect((await claim(now + 60_001)).map(seqsOf)).toEqual([[2, 3]]);
    expect(ordered.ordering).toBe('PerDevice');
  });

  it('counts held deliveries as queued; switched to None, they go at once', async () => {
    const ordered = await linked({});
    await store.deliveries.ingest([point(7, 0), point(7, 1)], now);
    expect(await store.deliveries.stats()).toMatchObject({ queued: 2 });
    const [head] = await claim();
    if (!head) throw new Error('claimed');
    await settle(head, 'retrying');
    expect((await store.updateConfig(ordered.id, (c) => ({ ...c, ordering: 'None' })))?.ordering).toBe('None');
    // Ordered no more: the held one goes at once, beside its retrying head.
    expect((await claim(now + 1)).map(seqsOf)).toEqual([[1]]);
  });

  it('refuses to retry now, or resend, a delivery held back by an earlier one of its device', async () => {
    const ordered = await linked({});
    await store.deliveries.ingest([point(7, 0), point(7, 1)], now);
    const [head] = await claim();
    if (!head) throw new Error('claimed');
    await settle(head, 'retrying');
    const [held] = await heldIds(location, ordered.id);
    if (!held) throw new Error('none held');
    expect(await store.deliveries.retryNow(ordered.id, held, now + 1)).toBe('held');
    expect(await store.deliveries.resend(ordered.id, held, now + 1)).toBe('not-settled');
  });

  it('lets a batch stream go on when an unlink took away its head’s only points', async () => {
    const ordered = await linked({ deliveryMode: 'Batch' });
    // Batches of two: device 7's two points are the head; the next batch holds device 8's.
    await store.deliveries.ingest([point(7, 0), point(7, 1), point(8, 2), point(8, 3)], now);
    await store.unlinkDevice(ordered.id, 7);
    expect(await claim()).toEqual([]);
    expect(await store.deliveries.releaseHeadless(100)).toBe(1);
    expect((await claim()).map(seqsOf)).toEqual([[2, 3]]);
    expect(await store.deliveries.releaseHeadless(100)).toBe(0);
  });
});

/** The held deliveries of `configId`, read on a connection of their own. */
async function heldIds(location: StoreLocation, configId: string): Promise<string[]> {
  const sql = "SELECT id FROM deliveries WHERE webhook_config_id = $1 AND state = 'held'";
  if (location.sqlitePath) {
    const db = new DatabaseSync(location.sqlitePath);
    try {
      return (db.prepare(sql.replace('$1', '?')).all(configId) as { id: string }[]).map((r) => r.id);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location.postgresUrl });
  await client.connect();
  try {
    return (await client.query<{ id: string }>(sql, [configId])).rows.map((r) => r.id);
  } finally {
    await client.end();
  }
}
