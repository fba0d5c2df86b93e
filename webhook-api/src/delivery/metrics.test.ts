import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register as globalRegistry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { QueueStats } from '../queue/delivery-queue.ts';
import type { StoredConfig } from '../store/records.ts';
import { createDeliveryMetrics, type DeliveryMetrics } from './metrics.ts';
import { openSqliteDatabase, type WebhookDatabase } from '../database.ts';
import { storedConfig } from '../../test/stored-config.ts';

const idle: QueueStats = { queued: 0, gathering: 0, oldestAcceptedAt: undefined };

/** The value of the series `name` whose labels include `labels`; undefined when there is none. */
async function valueOf(metrics: DeliveryMetrics, name: string, labels: Record<string, string | number> = {}): Promise<number | undefined> {
  const all = await metrics.registry.getMetricsAsJSON();
  for (const metric of all) {
    for (const value of metric.values as { metricName?: string; labels: Record<string, string | number>; value: number }[]) {
      const series = value.metricName ?? metric.name;
      if (series === name && Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted)) return value.value;
    }
  }
  return undefined;
}

describe('the delivery metrics', () => {
  it('count ingest, outcomes and retries, and observe attempt durations by outcome', async () => {
    const metrics = createDeliveryMetrics({ queue: { stats: () => Promise.resolve(idle) } });
    metrics.ingested(3, 5);
    metrics.ingested(2, 0);
    metrics.attempt('delivered', 120);
    metrics.attempt('delivered', 80);
    metrics.attempt('retrying', 2500);
    metrics.attempt('dropped', 40);
    metrics.attempt('failed', 31_000);

    expect(await valueOf(metrics, 'webhook_points_ingested_total')).toBe(5);
    expect(await valueOf(metrics, 'webhook_points_queued_total')).toBe(5);
    expect(await valueOf(metrics, 'webhook_deliveries_total', { outcome: 'delivered' })).toBe(2);
    expect(await valueOf(metrics, 'webhook_deliveries_total', { outcome: 'dropped' })).toBe(1);
    expect(await valueOf(metrics, 'webhook_deliveries_total', { outcome: 'failed' })).toBe(1);
    // A retry is not a delivery settled: it has its own counter.
    expect(await valueOf(metrics, 'webhook_deliveries_total', { outcome: 'retrying' })).toBeUndefined();
    expect(await valueOf(metrics, 'webhook_retries_total')).toBe(1);

    const duration = 'webhook_attempt_duration_seconds';
    expect(await valueOf(metrics, `${duration}_count`, { outcome: 'delivered' })).toBe(2);
    expect(await valueOf(metrics, `${duration}_sum`, { outcome: 'delivered' })).toBeCloseTo(0.2);
    expect(await valueOf(metrics, `${duration}_bucket`, { outcome: 'delivered', le: 0.1 })).toBe(1);
    expect(await valueOf(metrics, `${duration}_bucket`, { outcome: 'delivered', le: 0.25 })).toBe(2);
    expect(await valueOf(metrics, `${duration}_count`, { outcome: 'retrying' })).toBe(1);
    expect(await valueOf(metrics, `${duration}_bucket`, { outcome: 'retrying', le: 2.5 })).toBe(1);
    // Past the last bucket (the 30 s request timeout): only +Inf holds it.
    expect(await valueOf(metrics, `${duration}_bucket`, { outcome: 'failed', le: 30 })).toBe(0);
    expect(await valueOf(metrics, `${duration}_bucket`, { outcome: 'failed', le: '+Inf' })).toBe(1);
  });

  it('observe the ingest-to-delivery latency once per point delivered', async () => {
    const metrics = createDeliveryMetrics({ queue: { stats: () => Promise.resolve(idle) } });
    metrics.delivered(1500, 3);
    metrics.delivered(40, 1);
    const latency = 'webhook_ingest_to_delivery_seconds';
    expect(await valueOf(metrics, `${latency}_count`)).toBe(4);
    expect(await valueOf(metrics, `${latency}_sum`)).toBeCloseTo(4.54);
    expect(await valueOf(metrics, `${latency}_bucket`, { le: 0.05 })).toBe(1);
    expect(await valueOf(metrics, `${latency}_bucket`, { le: 1 })).toBe(1);
    expect(await valueOf(metrics, `${latency}_bucket`, { le: 2.5 })).toBe(4);
  });

  it('keep their own registry, with the default process metrics, out of the global one', async () => {
    const metrics = createDeliveryMetrics({ queue: { stats: () => Promise.resolve(idle) } });
    const text = await metrics.registry.metrics();
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect(text).toContain('# TYPE webhook_deliveries_total counter');
    expect(await globalRegistry.metrics()).not.toContain('webhook_');
    // A second set (a test, a second app in one process) does not collide with the first.
    expect(() => createDeliveryMetrics({ queue: { stats: () => Promise.resolve(idle) } })).not.toThrow();
  });

  it('read the queue once per scrape for all its gauges', async () => {
    const stats = vi.fn(() => Promise.resolve({ queued: 4, gathering: 9, oldestAcceptedAt: 1_000 }));
    const metrics = createDeliveryMetrics({ queue: { stats }, now: () => 3_500 });
    const text = await metrics.registry.metrics();
    expect(stats).toHaveBeenCalledTimes(1);
    expect(text).toMatch(/^webhook_queue_depth 4$/m);
    expect(text).toMatch(/^webhook_batch_points_waiting 9$/m);
    expect(text).toMatch(/^webhook_oldest_queued_age_seconds 2.5$/m);
    await metrics.registry.metrics();
    expect(stats).toHaveBeenCalledTimes(2);
  });
});

describe('the queue gauges on a real SQLite queue', () => {
  let store: WebhookDatabase;
  beforeEach(async () => {
    store = await openSqliteDatabase(join(mkdtempSync(join(tmpdir(), 'metrics-')), 'webhooks.db'), { batch: { maxPoints: 100, lingerMs: 60_000 } });
  });
  afterEach(async () => {
    await store.close();
  });

  async function linked(deliveryMode: StoredConfig['deliveryMode']): Promise<StoredConfig> {
    const created = await store.createConfig(storedConfig({ name: deliveryMode, url: 'http://127.0.0.1:9/hook', deliveryMode }));
    if (created === 'limit-reached') throw new Error('limit');
    await store.linkDevice({ webhookConfigId: created.id, deviceId: 7, createdAt: new Date().toISOString() });
    await store.createScope(created.id, 7, { id: randomUUID(), scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true });
    return created;
  }

  const point = (value: number) => ({
    deviceId: 7,
    gatewayId: 'gw-1',
    connectionTag: 'modbus',
    measurement: 'temperature',
    point: JSON.stringify({ Measurement: 'temperature', Fields: { value }, Tags: {}, UtcTimestamp: '2026-11-22T12:00:00.000Z' }),
  });

  it('show queued deliveries, points waiting for their batch and the oldest one’s age, as the queue moves', async () => {
    await linked('Realtime');
    await linked('Batch');
    let now = 1_000_000;
    const metrics = createDeliveryMetrics({ queue: store.deliveries, now: () => now });
    const gauges = async () => ({
      depth: await valueOf(metrics, 'webhook_queue_depth'),
      waiting: await valueOf(metrics, 'webhook_batch_points_waiting'),
      age: await valueOf(metrics, 'webhook_oldest_queued_age_seconds'),
    });
    expect(await gauges()).toEqual({ depth: 0, waiting: 0, age: 0 });

    await store.deliveries.ingest([point(1), point(2)], now);
    now += 2_500;
    expect(await gauges()).toEqual({ depth: 2, waiting: 2, age: 2.5 });

    // The Realtime deliveries are delivered; the Batch points wait in their open batch.
    const claimed = await store.deliveries.claim({ owner: 'a', now, leaseMs: 10_000, limit: 10, perConfig: 10, inFlight: new Map() });
    expect(claimed.map((c) => c.mode)).toEqual(['Realtime', 'Realtime']);
    const settled = (id: string) => ({
      id,
      outcome: 'delivered' as const,
      attempt: 0,
      status: 200,
      error: null,
      responseBody: '',
      startedAt: now,
      durationMs: 3,
      pointCount: 1,
    });
    await store.deliveries.settle(
      'a',
      claimed.map((c) => settled(c.id)),
      now,
    );
    expect(await gauges()).toEqual({ depth: 0, waiting: 2, age: 2.5 });

    // Its linger over, the batch is claimed (and closed): a delivery, no longer waiting.
    const [batch] = await store.deliveries.claim({ owner: 'a', now: now + 60_000, leaseMs: 10_000, limit: 10, perConfig: 10, inFlight: new Map() });
    if (!batch) throw new Error('no batch');
    expect(await gauges()).toEqual({ depth: 1, waiting: 0, age: 2.5 });
    await store.deliveries.settle('a', [settled(batch.id)], now);
    expect(await gauges()).toEqual({ depth: 0, waiting: 0, age: 0 });
  });
});
