import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { newStoreLocation } from '../../../test/harness.ts';
import { storedConfig } from '../../../test/stored-config.ts';
import { postgresClients } from '../../../test/postgres-clients.ts';
import { settlement } from '../../../test/settlements.ts';
import type { WebhookDatabase } from '../../database.ts';
import type { SqlDriver } from '../../store/sql-driver.ts';
import { openPostgresDriver } from '../../store/postgres/open-postgres.ts';
import { giveBackIdle } from '../endpoint-logs.ts';
import { lockStreams } from './stream-locks.ts';

const point = {
  deviceId: 7,
  gatewayId: 'gw-1',
  connectionTag: 'modbus',
  measurement: 'temperature',
  point: JSON.stringify({ Measurement: 'temperature', Fields: { value: 1 }, Tags: {}, UtcTimestamp: '2026-11-29T12:00:00.000Z' }),
};
const now = 1_000_000;

// A deliverer gives back its idle cursors (a transaction of its own after the claim's read, across
// round trips) while its lease renewal, on another connection, extends every cursor it holds. Each locks several cursor
// rows; taken in different orders, each could hold one the other waits for, and PostgreSQL would
// end one of them as a deadlock after a second. Every statement that locks several cursors and
// waits for them takes them in their key's order, which is what these cases look for: with the row
// of the larger key locked elsewhere, each holds the smaller one while it waits.
describe('statements locking several endpoint cursors on PostgreSQL', () => {
  let store: WebhookDatabase;
  let url: string;
  let driver: SqlDriver;
  const clients = postgresClients(() => url);
  const client = () => clients.open();
  /** The two cursors' keys, smaller first. */
  let first: string;
  let second: string;

  beforeEach(async () => {
    const location = await newStoreLocation('PostgreSQL', inject('postgresUrl'), { copySchema: true });
    url = location.postgresUrl ?? '';
    store = await location.open();
    driver = await openPostgresDriver(url, { maxConnections: 2 });
    const made: string[] = [];
    for (let i = 0; i < 2; i++) {
      const created = await store.createConfig(storedConfig({ url: 'http://127.0.0.1:9/hook' }));
      if (created === 'limit-reached') throw new Error('limit');
      await store.linkDevice({ webhookConfigId: created.id, deviceId: 7, createdAt: new Date().toISOString() });
      await store.createScope(created.id, 7, { id: randomUUID(), scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true });
      made.push(created.id);
    }
    [first = '', second = ''] = made.sort();
    // Both cursors held by deliverer d, their points delivered: idle, to be given back.
    await store.deliveries.ingest([point], now);
    const claimed = await store.deliveries.claim({ owner: 'd', now, leaseMs: 10_000, limit: 10, perConfig: 10, inFlight: new Map() });
    expect(claimed).toHaveLength(2);
    const settled = await store.deliveries.settle(
      'd',
      claimed.map(({ id }) => settlement(id, 'delivered', { startedAt: now })),
      now,
    );
    expect(settled.size).toBe(2);
    // The smaller key's row written anew, at the table's end and in the holder index after the
    // other's (its holder changed and changed back: no heap-only update), where a scan that keeps no
    // order of keys meets it second.
    const writer = await client();
    for (const holder of ['e', 'd']) await writer.query('UPDATE endpoint_cursors SET lease_owner = $2 WHERE webhook_config_id = $1', [first, holder]);
  });
  afterEach(async () => {
    await clients.closeAll();
    await driver.close();
    await store.close();
  });

  /** Runs `lockBoth` while another transaction holds the second cursor: while it waits, the first is already its. */
  async function takesFirstThenSecond(lockBoth: () => Promise<unknown>): Promise<void> {
    const blocker = await client();
    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM endpoint_cursors WHERE webhook_config_id = $1 FOR UPDATE', [second]);
    const running = lockBoth();
    const watcher = await client();
    // Its connection may be new (a login and a prepare first): room for a loaded machine.
    await vi.waitFor(
      async () => {
        const waiting = await watcher.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        );
        expect(Number(waiting.rows[0]?.n)).toBe(1);
      },
      { timeout: 10_000 },
    );
    const probe = await client();
    await probe.query('BEGIN');
    await expect(probe.query('SELECT 1 FROM endpoint_cursors WHERE webhook_config_id = $1 FOR UPDATE NOWAIT', [first])).rejects.toMatchObject({
      code: '55P03',
    });
    await probe.query('ROLLBACK');
    await blocker.query('COMMIT');
    await running;
  }

  it('a lease renewal takes them in their key order', async () => {
    await takesFirstThenSecond(() => store.deliveries.renewLeases('d', [], now + 20_000));
    const rows = await (await client()).query<{ lease_until: string }>('SELECT lease_until FROM endpoint_cursors ORDER BY webhook_config_id');
    expect(rows.rows.map((row) => Number(row.lease_until))).toEqual([now + 20_000, now + 20_000]);
  });

  // On a plain connection, whose planner may scan the table: the order must not hang on the
  // deliverer's connections' planner settings (which walk an index) or on the order of the keys given.
  it('a give-back of idle cursors takes them in their key order', async () => {
    await takesFirstThenSecond(() => giveBackIdle(driver, lockStreams, 'd', [second, first]));
    const rows = await (await client()).query<{ lease_owner: string | null }>('SELECT lease_owner FROM endpoint_cursors ORDER BY webhook_config_id');
    expect(rows.rows.map((row) => row.lease_owner)).toEqual([null, null]);
  });

  it('a release takes them in their key order', async () => {
    await takesFirstThenSecond(() => store.deliveries.release('d'));
    const rows = await (await client()).query<{ lease_owner: string | null }>('SELECT lease_owner FROM endpoint_cursors ORDER BY webhook_config_id');
    expect(rows.rows.map((row) => row.lease_owner)).toEqual([null, null]);
  });
});
