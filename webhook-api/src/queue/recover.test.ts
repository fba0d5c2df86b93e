import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { newStoreLocation, type Backend } from '../../test/harness.ts';
import { storedConfig } from '../../test/stored-config.ts';
import type { WebhookDatabase } from '../database.ts';
import type { StoredConfig } from '../store/records.ts';
import type { ClaimedDelivery, QueuedPoint, Settlement } from './delivery-queue.ts';

const point = (deviceId: number, value: number): QueuedPoint => ({
  deviceId,
  gatewayId: 'gw-1',
  connectionTag: 'modbus',
  measurement: 'temperature',
  point: JSON.stringify({ Measurement: 'temperature', Fields: { value }, Tags: {}, UtcTimestamp: '2026-11-22T12:00:00.000Z' }),
});
const claimAll = { leaseMs: 10_000, limit: 1000, perConfig: 1000, inFlight: new Map<string, number>() };

describe.each<Backend>(['SQLite', 'PostgreSQL'])('recovery of failed and dropped deliveries on %s', (backend) => {
  let store: WebhookDatabase;
  let config: StoredConfig;
  let now = 1_000_000;
  beforeEach(async () => {
    store = await (await newStoreLocation(backend, inject('postgresUrl'), { copySchema: true })).open();
    const created = await store.createConfig(storedConfig({ url: 'http://127.0.0.1:9/hook' }));
    if (created === 'limit-reached') throw new Error('limit');
    config = created;
    for (const device of [7, 8]) {
      await store.linkDevice({ webhookConfigId: config.id, deviceId: device, createdAt: new Date().toISOString() });
      await store.createScope(config.id, device, { id: randomUUID(), scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true });
    }
    now = 1_000_000;
  });
  afterEach(async () => {
    await store.close();
  });

  /** Ingests points (one delivery each), claims them and settles each as told, at `now`; the deliveries in ingest order. */
  async function settled(outcomes: Settlement['outcome'][], device = 7): Promise<ClaimedDelivery[]> {
    await store.deliveries.ingest(
      outcomes.map((_, i) => point(device, i)),
      now,
    );
    const claimed = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    await store.deliveries.settle(
      'a',
      claimed.map((d, i) => ({
        id: d.id,
        outcome: outcomes[i] ?? 'delivered',
        attempt: 0,
        status: 500,
        error: 'x',
        responseBody: '',
        startedAt: now,
        durationMs: 1,
        pointCount: 1,
        ...(outcomes[i] === 'retrying' && { nextAttemptAt: now + 60_000 }),
      })),
      now,
    );
    return claimed;
  }
  const queued = async () =>
    (await store.deliveries.claim({ owner: 'b', now: now + 30_000, ...claimAll })).map((d) => ({ webhookId: d.webhookId, points: d.points }));

  it('queues every failed and dropped delivery settled since the time again, keeping its webhook-id and points; not the delivered, the waiting, nor the older', async () => {
    const [early] = await settled(['failed']);
    now += 1_000;
    const [failed, dropped, delivered, waiting] = await settled(['failed', 'dropped', 'delivered', 'retrying']);
    expect(await store.deliveries.recover(config.id, now, now + 5, 100)).toEqual({ queued: 2, more: false });
    const again = await queued();
    expect(again.map((d) => d.webhookId).sort()).toEqual([failed?.webhookId, dropped?.webhookId].sort());
    expect(again.map((d) => d.points)).toEqual(expect.arrayContaining([failed?.points, dropped?.points]));
    expect([early, delivered, waiting].map((d) => d?.webhookId)).not.toContain(again[0]?.webhookId);
  });

  it('does not queue twice what a first recovery queued and is pending, and recovers a recovered delivery that failed again', async () => {
    await settled(['failed', 'dropped']);
    expect(await store.deliveries.recover(config.id, 0, now + 5, 100)).toEqual({ queued: 2, more: false });
    expect(await store.deliveries.recover(config.id, 0, now + 6, 100)).toEqual({ queued: 0, more: false });
    // The two sent again fail again: the next recovery sends those (not their originals) once more.
    const retried = await store.deliveries.claim({ owner: 'c', now: now + 10, ...claimAll });
    expect(retried).toHaveLength(2);
    await store.deliveries.settle(
      'c',
      retried.map((d) => ({
        id: d.id,
        outcome: 'failed',
        attempt: 0,
        status: 500,
        error: 'x',
        responseBody: '',
        startedAt: now + 10,
        durationMs: 1,
        pointCount: 1,
      })),
      now + 10,
    );
    expect(await store.deliveries.recover(config.id, 0, now + 20, 100)).toEqual({ queued: 2, more: false });
    expect(await store.deliveries.recover(config.id, 0, now + 21, 100)).toEqual({ queued: 0, more: false });
  });

  it('does not send again what a resend sends again', async () => {
    const [failed, other] = await settled(['failed', 'failed']);
    if (!failed || !other) throw new Error('settled');
    expect(await store.deliveries.resend(config.id, failed.id, now + 1)).toMatchObject({ resent: expect.any(String) as unknown });
    expect(await store.deliveries.recover(config.id, 0, now + 2, 100)).toEqual({ queued: 1, more: false });
    expect((await queued()).map((d) => d.webhookId).sort()).toEqual([failed.webhookId, other.webhookId].sort());
  });

  it('queues at most the limit a call, oldest first, and says more are left', async () => {
    const first = await settled(['failed', 'failed', 'failed']);
    expect(await store.deliveries.recover(config.id, 0, now + 1, 2)).toEqual({ queued: 2, more: true });
    expect(await store.deliveries.recover(config.id, 0, now + 2, 2)).toEqual({ queued: 1, more: false });
    expect(new Set((await queued()).map((d) => d.webhookId))).toEqual(new Set(first.map((d) => d.webhookId)));
  });

  it('leaves out the points of devices unlinked since, and a delivery none of whose devices is linked', async () => {
    const [ofSeven] = await settled(['failed'], 7);
    await settled(['failed'], 8);
    await store.unlinkDevice(config.id, 8);
    expect(await store.deliveries.recover(config.id, 0, now + 1, 100)).toEqual({ queued: 1, more: false });
    expect((await queued()).map((d) => d.webhookId)).toEqual([ofSeven?.webhookId]);
  });

  it('leaves test deliveries and other configurations alone', async () => {
    await store.deliveries.recordTest({
      id: randomUUID(),
      webhookId: 'msg_test',
      configId: config.id,
      mode: 'Realtime',
      gatewayId: 'webhook-test',
      measurement: 'webhook-test',
      outcome: 'failed',
      status: 500,
      error: 'x',
      responseBody: '',
      startedAt: now,
      durationMs: 1,
    });
    await settled(['failed']);
    expect(await store.deliveries.recover(randomUUID(), 0, now + 1, 100)).toEqual({ queued: 0, more: false });
    expect(await store.deliveries.recover(config.id, 0, now + 1, 100)).toEqual({ queued: 1, more: false });
  });
});
