import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { newStoreLocation, type Backend } from '../../test/harness.ts';
import { storedConfig } from '../../test/stored-config.ts';
import type { WebhookDatabase } from '../database.ts';
import type { IdempotencyKey, QueuedPoint } from './delivery-queue.ts';
import { idempotencyWindowMs } from './ingest-keys.ts';

const point = (value: number): QueuedPoint => ({
  deviceId: 7,
  gatewayId: 'gw-1',
  connectionTag: 'modbus',
  measurement: 'temperature',
  point: JSON.stringify({ Measurement: 'temperature', Fields: { value }, Tags: {}, UtcTimestamp: '2026-11-22T12:00:00.000Z' }),
});
const key = (overrides: Partial<IdempotencyKey> = {}): IdempotencyKey => ({ caller: 'caller-a', key: 'retry-1', bodyHash: 'hash-1', ...overrides });

describe.each<Backend>(['SQLite', 'PostgreSQL'])('idempotency keys of ingest on %s', (backend) => {
  let store: WebhookDatabase;
  const now = 1_000_000_000;
  beforeEach(async () => {
    store = await (await newStoreLocation(backend, inject('postgresUrl'), { copySchema: true })).open();
    const config = await store.createConfig(storedConfig({ url: 'http://127.0.0.1:9/hook' }));
    if (config === 'limit-reached') throw new Error('limit');
    await store.linkDevice({ webhookConfigId: config.id, deviceId: 7, createdAt: new Date().toISOString() });
    await store.createScope(config.id, 7, { id: randomUUID(), scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true });
  });
  afterEach(async () => {
    await store.close();
  });
  const queued = async () => (await store.deliveries.stats()).queued;

  it('answers a repeat of the same points with the first answer and queues nothing; other points under the key are a conflict', async () => {
    expect(await store.deliveries.ingest([point(1), point(2)], now, key())).toEqual({ queued: 2 });
    expect(await store.deliveries.ingest([point(1), point(2)], now + 1_000, key())).toEqual({ queued: 0, replayed: { accepted: 2, queued: 2 } });
    expect(await store.deliveries.ingest([point(3)], now + 2_000, key({ bodyHash: 'hash-2' }))).toBe('key-conflict');
    expect(await queued()).toBe(2);
  });

  it('keeps keys per caller, and takes a key over once its window has passed', async () => {
    await store.deliveries.ingest([point(1)], now, key());
    expect(await store.deliveries.ingest([point(1)], now, key({ caller: 'caller-b' }))).toEqual({ queued: 1 });
    expect(await store.deliveries.ingest([point(1)], now + idempotencyWindowMs - 1, key())).toMatchObject({ replayed: { queued: 1 } });
    // A day later the key is new again, whatever points it comes with.
    expect(await store.deliveries.ingest([point(9)], now + idempotencyWindowMs, key({ bodyHash: 'hash-9' }))).toEqual({ queued: 1 });
    expect(await store.deliveries.ingest([point(9)], now + idempotencyWindowMs + 1, key({ bodyHash: 'hash-9' }))).toMatchObject({ replayed: { queued: 1 } });
    expect(await queued()).toBe(3);
  });

  it('prunes only the keys past their window', async () => {
    await store.deliveries.ingest([point(1)], now, key({ key: 'old' }));
    await store.deliveries.ingest([point(1)], now + 10, key({ key: 'young' }));
    expect(await store.deliveries.pruneIngestKeys(now + idempotencyWindowMs + 5, 100)).toBe(1);
    // The young key still answers; the old one is gone and queues anew.
    expect(await store.deliveries.ingest([point(1)], now + idempotencyWindowMs + 6, key({ key: 'young' }))).toMatchObject({ replayed: { queued: 1 } });
    expect(await store.deliveries.ingest([point(1)], now + idempotencyWindowMs + 6, key({ key: 'old' }))).toEqual({ queued: 1 });
  });

  it('answers every one of 20 concurrent requests with one key alike, and queues the points once', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => store.deliveries.ingest([point(1), point(2), point(3)], now, key())));
    expect(answers.filter((a) => a !== 'key-conflict' && a.replayed === undefined)).toEqual([{ queued: 3 }]);
    expect(answers.filter((a) => a !== 'key-conflict' && a.replayed !== undefined)).toHaveLength(19);
    for (const answer of answers)
      expect(answer === 'key-conflict' ? answer : (answer.replayed ?? { accepted: 3, queued: answer.queued })).toEqual({ accepted: 3, queued: 3 });
    expect(await queued()).toBe(3);
  });
});
