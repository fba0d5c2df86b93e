import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { newStoreLocation } from '../../../test/harness.ts';
import { storedConfig } from '../../../test/stored-config.ts';
import { postgresClients } from '../../../test/postgres-clients.ts';
import { settlement } from '../../../test/settlements.ts';
import type { WebhookDatabase } from '../../database.ts';
import { logStream, streamKey } from '../streams.ts';
import { openPostgresDriver } from '../../store/postgres/open-postgres.ts';
import { createPostgresDeliveryQueue } from './postgres-delivery-queue.ts';
import { streamLocksQuery } from './stream-locks.ts';

const point = (value: number) => ({
  deviceId: 7,
  gatewayId: 'gw-1',
  connectionTag: 'modbus',
  measurement: 'temperature',
  point: JSON.stringify({ Measurement: 'temperature', Fields: { value }, Tags: {}, UtcTimestamp: '2026-11-29T12:00:00.000Z' }),
});

const claimAll = { leaseMs: 10_000, limit: 100, perConfig: 100, inFlight: new Map<string, number>() };

// PostgreSQL writes an ingest of points that go only to endpoint logs in one statement (routing.ts,
// queueLoggedOnly), which reads by a snapshot taken before it waited for the logs' locks.
describe('an ingest of endpoint-log points on PostgreSQL', () => {
  let store: WebhookDatabase;
  let url: string;
  const clients = postgresClients(() => url);
  const client = () => clients.open();
  beforeEach(async () => {
    const location = await newStoreLocation('PostgreSQL', inject('postgresUrl'), { copySchema: true });
    url = location.postgresUrl ?? '';
    store = await location.open();
  });
  afterEach(async () => {
    await clients.closeAll();
    await store.close();
  });

  /** A configuration of device 7, delivering everything of it. */
  async function linked(): Promise<string> {
    const created = await store.createConfig(storedConfig({ url: 'http://127.0.0.1:9/hook' }));
    if (created === 'limit-reached') throw new Error('limit');
    await store.linkDevice({ webhookConfigId: created.id, deviceId: 7, createdAt: new Date().toISOString() });
    await store.createScope(created.id, 7, { id: randomUUID(), scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true });
    return created.id;
  }

  it('of two endpoints locks no cursor a deliverer holds, so it closes no lock cycle with a renewal of both in either order', async () => {
    const [a, b] = [await linked(), await linked()];
    const now = 1_000_000;
    // The cursors made, then both held by one deliverer (read, not settled).
    await store.deliveries.ingest([point(1)], now);
    expect(await store.deliveries.claim({ owner: 'd', now, ...claimAll })).toHaveLength(2);
    const renewer = await client();
    for (const [first, second] of [
      [a, b],
      [b, a],
    ]) {
      // A renewal that locks the cursors one by one, as an UPDATE of several rows does in its own order.
      await renewer.query('BEGIN');
      await renewer.query('UPDATE endpoint_cursors SET lease_until = lease_until + 1 WHERE webhook_config_id = $1', [first]);
      // The ingest ends while the renewal holds one cursor: holding the other while it waited for
      // this one, it would deadlock with the renewal's next row (an ingest that retries its
      // deadlocks would hide that, so it is the wait that is looked for).
      const ingested = store.deliveries.ingest([point(2)], now);
      const waited = new Promise<'waited'>((resolve) =>
        setTimeout(() => {
          resolve('waited');
        }, 5_000).unref(),
      );
      expect(await Promise.race([ingested, waited])).toEqual({ queued: 2 });
      await renewer.query('UPDATE endpoint_cursors SET lease_until = lease_until + 1 WHERE webhook_config_id = $1', [second]);
      await renewer.query('COMMIT');
      await ingested;
    }
  });

  it('runs again, once, when PostgreSQL rolled it back as a deadlock’s victim, queuing its points once', async () => {
    await linked();
    const now = 1_000_000;
    await store.deliveries.ingest([point(1)], now);
    const driver = await openPostgresDriver(url, { maxConnections: 2 });
    try {
      let victims = 0;
      // The write's statement fails once as a deadlock's victim does: rolled back whole.
      const queue = createPostgresDeliveryQueue({
        ...driver,
        run: async (sql, values) => {
          if (typeof sql !== 'string' && sql.name === 'webhook_ingest_logged' && victims++ === 0)
            throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
          return driver.run(sql, values);
        },
      });
      expect(await queue.ingest([point(2)], now)).toEqual({ queued: 1 });
      expect(victims).toBe(2);
    } finally {
      await driver.close();
    }
    expect((await store.deliveries.claim({ owner: 'a', now, ...claimAll })).flatMap((c) => c.points)).toEqual([point(1).point, point(2).point]);
  });

  it('leaves its endpoint’s cursor active when the cursor was given back while it waited for the log’s lock', async () => {
    const cfg = await linked();
    const now = 1_000_000;
    // A first point makes the cursor; its holder reads and delivers it: the cursor is held, active, its log empty.
    await store.deliveries.ingest([point(1)], now);
    const [first] = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    if (!first) throw new Error('nothing claimed');
    await store.deliveries.settle('a', [settlement(first.id, 'delivered', { startedAt: now })], now);

    // The holder gives the cursor back as giveBackIdle does: the log's lock, then the cursor free and inactive.
    const holder = await client();
    await holder.query('BEGIN');
    await holder.query(streamLocksQuery('$1'), [JSON.stringify([streamKey({ cfg, stream: logStream })])]);
    await holder.query('UPDATE endpoint_cursors SET lease_owner = NULL, lease_until = NULL, read_through = 0, active = false WHERE webhook_config_id = $1', [
      cfg,
    ]);
    const ingested = store.deliveries.ingest([point(2)], now);
    // The ingest's statement has begun (its snapshot taken) and waits for the lock.
    const watcher = await client();
    // Room for a loaded machine: the ingest's connection may be new (a login first).
    await vi.waitFor(
      async () => {
        const waiting = await watcher.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO delivery_points%'`,
        );
        expect(Number(waiting.rows[0]?.n)).toBe(1);
      },
      { timeout: 10_000 },
    );
    await holder.query('COMMIT');
    expect(await ingested).toEqual({ queued: 1 });

    const claimed = await store.deliveries.claim({ owner: 'b', now, ...claimAll });
    expect(claimed.flatMap((c) => c.points)).toEqual([point(2).point]);
  });
});
