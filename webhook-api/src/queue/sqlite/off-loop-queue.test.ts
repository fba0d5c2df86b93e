import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, renameSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { sourceCondition } from '@platform/devtools/source-condition';
import { openSqliteDatabase, type WebhookDatabase } from '../../database.ts';
import { StoreUnavailableError } from '../../store/store-unavailable.ts';
import { storedConfig } from '../../../test/stored-config.ts';
import { settlement } from '../../../test/settlements.ts';
import type { QueuedPoint } from '../delivery-queue.ts';

const point = (deviceId: number, measurement = 'temperature'): QueuedPoint => ({
  deviceId,
  gatewayId: 'gw-1',
  connectionTag: 'modbus',
  measurement,
  point: JSON.stringify({ Measurement: measurement, Fields: { value: 1 }, Tags: {}, UtcTimestamp: '2026-11-22T12:00:00.000Z' }),
});

const claimAll = { leaseMs: 10_000, limit: 100, perConfig: 100, inFlight: new Map<string, number>() };

const newPath = () => join(mkdtempSync(join(tmpdir(), 'off-loop-')), 'webhooks.db');

async function linkedConfig(store: WebhookDatabase, deviceId: number, deliveryMode: 'Realtime' | 'Batch' = 'Realtime'): Promise<string> {
  const created = await store.createConfig(storedConfig({ url: 'http://127.0.0.1:9/hook', deliveryMode }));
  if (created === 'limit-reached') throw new Error('limit');
  await store.linkDevice({ webhookConfigId: created.id, deviceId, createdAt: new Date().toISOString() });
  await store.createScope(created.id, deviceId, { id: randomUUID(), scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true });
  return created.id;
}

describe('the SQLite delivery queue off the event loop', () => {
  const opened: WebhookDatabase[] = [];
  const open = async (path: string, busyTimeoutMs?: number) => {
    const store = await openSqliteDatabase(path, { queueThread: true, ...(busyTimeoutMs !== undefined && { busyTimeoutMs }) });
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  it('claims in the worker what ingest committed in the loop, and the loop sees what its settlements wrote', async () => {
    const store = await open(newPath());
    await linkedConfig(store, 7);
    await store.deliveries.ingest([point(7), point(7)], 1_000);
    const claimed = await store.deliveries.claim({ owner: 'a', now: 1_000, ...claimAll });
    expect(claimed).toHaveLength(2);
    expect(await store.deliveries.stats()).toMatchObject({ queued: 2 });
    const settled = await store.deliveries.settle(
      'a',
      claimed.map((d) => settlement(d.id)),
      1_001,
    );
    expect(settled).toEqual(new Set(claimed.map((d) => d.id)));
    expect(await store.deliveries.stats()).toMatchObject({ queued: 0 });
    expect(await store.deliveries.nextDueAt()).toBeUndefined();
  });

  it('runs the deliverer’s statements on another thread than the loop', async () => {
    const path = newPath();
    const store = await open(path);
    // A third connection holds the write lock.
    const probe = new DatabaseSync(path);
    try {
      await linkedConfig(store, 7);
      await store.deliveries.ingest([point(7)], 1_000);
      expect(threadId).toBe(0);
      // The worker's claim waits for the lock up to its busy timeout, in SQLite, and fails as an outage;
      // a claim in the loop would hold the loop as long, while here a timer fires all along.
      const locked = await open(path, 200);
      probe.exec('BEGIN IMMEDIATE');
      let ticks = 0;
      const timer = setInterval(() => (ticks += 1), 10);
      const failure = await locked.deliveries.claim({ owner: 'a', now: 1_000, ...claimAll }).catch((error: unknown) => error);
      clearInterval(timer);
      probe.exec('ROLLBACK');
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect(ticks).toBeGreaterThan(5);
    } finally {
      probe.close();
    }
  });

  it('wakes the loop’s deliverer when ingest opens a batch, not when a point only joins it; the worker claims it with every point', async () => {
    const store = await open(newPath());
    await linkedConfig(store, 8, 'Batch');
    let woken = 0;
    const stop = store.deliveries.onWork(() => (woken += 1));
    await store.deliveries.ingest([point(8)], 1_000);
    expect(woken).toBe(1);
    await store.deliveries.ingest([point(8)], 1_500);
    stop();
    expect(woken).toBe(1);
    // Due when the linger (1 s by default) ends, counted from its first point.
    expect(await store.deliveries.nextDueAt()).toBe(2_000);
    const [batch] = await store.deliveries.claim({ owner: 'a', now: 2_000, ...claimAll });
    expect(batch?.points).toHaveLength(2);
  });

  it('answers an outage when its worker cannot start, and starts a new one for the next call', async () => {
    const path = newPath();
    const store = await open(path);
    await linkedConfig(store, 7);
    await store.deliveries.ingest([point(7)], 1_000);
    // The file is a folder for a moment: the loop's connection keeps its own open file, the worker cannot open one.
    renameSync(path, `${path}.aside`);
    mkdirSync(path);
    const failure = await store.deliveries.claim({ owner: 'a', now: 1_000, ...claimAll }).catch((error: unknown) => error);
    rmdirSync(path);
    renameSync(`${path}.aside`, path);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect((failure as Error).message).toMatch(/^the delivery queue's worker (failed|stopped)/);
    expect(await store.deliveries.claim({ owner: 'a', now: 1_000, ...claimAll })).toHaveLength(1);
  });

  it('leaves a process free to exit once its deliverer’s calls are answered, without a close', async () => {
    const path = newPath();
    const scriptPath = join(mkdtempSync(join(tmpdir(), 'off-loop-exit-')), 'claim-once.ts');
    writeFileSync(
      scriptPath,
      `
      import { openSqliteDatabase } from ${JSON.stringify(join(import.meta.dirname, '../../database.ts'))};
      const store = await openSqliteDatabase(${JSON.stringify(path)}, { queueThread: true });
      process.stdout.write(JSON.stringify(await store.deliveries.claim({ owner: 'a', now: 1, leaseMs: 1, limit: 1, perConfig: 1, inFlight: new Map() })));
    `,
    );
    const child = spawn(process.execPath, [sourceCondition, scriptPath], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
    expect(out.trim()).toBe('[]');
  });
});
