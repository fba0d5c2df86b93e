import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { newStoreLocation, type Backend, type StoreLocation } from '../../test/harness.ts';
import type { ScopeRoute } from '../store/records.ts';
import type { QueuedPoint } from './delivery-queue.ts';
import type { StoredConfig } from '../store/records.ts';
import { storedConfig } from '../../test/stored-config.ts';
import { settlement } from '../../test/settlements.ts';
import type { WebhookDatabase } from '../database.ts';

const config = (overrides: Partial<StoredConfig> = {}): StoredConfig => storedConfig({ url: 'http://127.0.0.1:9/hook', ...overrides });

const point = (deviceId: number, connectionTag = 'modbus', measurement = 'temperature', value = 1): QueuedPoint => ({
  deviceId,
  gatewayId: 'gw-1',
  connectionTag,
  measurement,
  point: JSON.stringify({ Measurement: measurement, Fields: { value }, Tags: {}, UtcTimestamp: '2026-11-22T12:00:00.000Z' }),
});

const scope = (route: Partial<ScopeRoute> = {}) => ({
  id: randomUUID(),
  scopeLevel: 'Device' as const,
  connectionTag: null,
  measurement: null,
  enabled: true,
  ...route,
});

const claimAll = { leaseMs: 10_000, limit: 100, perConfig: 100, inFlight: new Map<string, number>() };

/** How many lines the attempt log holds in all, read on a connection of its own (the queue's reads join them to their deliveries). */
async function attemptLines(location: StoreLocation): Promise<number> {
  if (location.sqlitePath) {
    const db = new DatabaseSync(location.sqlitePath);
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM delivery_attempts').get() as { n: number }).n;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location.postgresUrl });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>('SELECT COUNT(*) AS n FROM delivery_attempts')).rows[0]?.n);
  } finally {
    await client.end();
  }
}

describe.each<Backend>(['SQLite', 'PostgreSQL'])('the delivery queue on %s', (backend) => {
  let store: WebhookDatabase;
  let location: StoreLocation;
  let now = 1_000_000;
  beforeEach(async () => {
    location = await newStoreLocation(backend, inject('postgresUrl'), { copySchema: true });
    store = await location.open();
    now = 1_000_000;
  });
  afterEach(async () => {
    await store.close();
  });

  async function linked(deviceId: number, routes: Partial<ScopeRoute>[], overrides: Partial<StoredConfig> = {}): Promise<StoredConfig> {
    const created = await store.createConfig(config(overrides));
    if (created === 'limit-reached') throw new Error('limit');
    await store.linkDevice({ webhookConfigId: created.id, deviceId, createdAt: new Date().toISOString() });
    for (const route of routes) await store.createScope(created.id, deviceId, scope(route));
    return created;
  }

  it('routes a point per the six rules: a link alone forwards nothing, a disabled scope nothing, a point matched twice once', async () => {
    const bare = await linked(7, []);
    const disabled = await linked(7, [{ enabled: false }]);
    const twice = await linked(7, [
      {},
      { scopeLevel: 'Connection', connectionTag: 'modbus' },
      { scopeLevel: 'Measurement', connectionTag: 'modbus', measurement: 'temperature' },
    ]);
    const otherMeasurement = await linked(7, [{ scopeLevel: 'Measurement', connectionTag: 'modbus', measurement: 'pressure' }]);
    const otherConnection = await linked(7, [{ scopeLevel: 'Connection', connectionTag: 'can' }]);

    expect(await store.deliveries.ingest([point(7)], now)).toEqual({ queued: 1 });
    const claimed = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    expect(claimed.map((c) => c.config.id)).toEqual([twice.id]);
    expect(claimed[0]?.points).toEqual([point(7).point]);
    for (const silent of [bare, disabled, otherMeasurement, otherConnection]) expect(claimed.map((c) => c.config.id)).not.toContain(silent.id);

    // can/x: the Device scope and the can Connection scope's configurations; modbus/pressure: the Device and the pressure scope's; device 8: nothing.
    expect(await store.deliveries.ingest([point(7, 'can', 'x'), point(7, 'modbus', 'pressure'), point(8)], now)).toEqual({ queued: 4 });
  });

  it('a claim leases, a second owner gets nothing until the lease runs out, and a settlement is a compare-and-swap on the lease', async () => {
    await linked(7, [{}]);
    await store.deliveries.ingest([point(7)], now);
    const [first] = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    if (!first) throw new Error('nothing claimed');
    expect(await store.deliveries.claim({ owner: 'b', now: now + 1, ...claimAll })).toEqual([]);
    // The lease runs out: b takes over; a's settlement finds nothing to settle.
    const [again] = await store.deliveries.claim({ owner: 'b', now: now + 10_001, ...claimAll });
    expect(again?.id).toBe(first.id);
    expect(await store.deliveries.settle('a', [settlement(first.id, 'delivered')], now)).toEqual(new Set());
    expect(await store.deliveries.settle('b', [settlement(first.id, 'delivered')], now)).toEqual(new Set([first.id]));
    expect(await store.deliveries.claim({ owner: 'c', now: now + 50_000, ...claimAll })).toEqual([]);
    const log = await store.deliveries.pageAttempts(first.config.id, {}, { limit: 10 });
    expect(log.items).toMatchObject([{ deliveryId: first.id, outcome: 'delivered', responseStatus: 200, attempt: 0, pointCount: 1 }]);
  });

  it('settles and claims in one call: the settlements answer as settle would (a lost lease left out), then what is due is claimed', async () => {
    await linked(7, [{}]);
    await store.deliveries.ingest([point(7), point(7)], now);
    const [first, second] = await store.deliveries.claim({ owner: 'a', now, ...claimAll, limit: 2 });
    if (!first || !second) throw new Error('nothing claimed');
    // b takes the endpoint's log over once a's lease runs out, reading it from its start; new work comes meanwhile.
    const later = now + 10_001;
    const takenOver = await store.deliveries.claim({ owner: 'b', now: later, ...claimAll, limit: 1 });
    expect(takenOver.map((d) => d.id)).toEqual([first.id]);
    await store.deliveries.ingest([point(7)], later);
    // a holds the endpoint no more: neither of its settlements counts, and b's log is not a's to read.
    expect(
      await store.deliveries.settleAndClaim([settlement(first.id, 'delivered'), settlement(second.id, 'delivered')], { owner: 'a', now: later, ...claimAll }),
    ).toEqual({ settled: new Set(), claimed: [] });
    // b's settlement counts, and its claim reads on: the point a had read and not settled, then the new one.
    const answer = await store.deliveries.settleAndClaim([settlement(first.id, 'delivered')], { owner: 'b', now: later, ...claimAll });
    expect(answer.settled).toEqual(new Set([first.id]));
    expect(answer.claimed.map((d) => d.id)).toEqual([second.id, expect.any(String)]);
    expect(answer.claimed[1]?.id).not.toBe(first.id);
    const log = await store.deliveries.pageAttempts(first.config.id, {}, { limit: 10 });
    expect(log.items.map((a) => a.deliveryId)).toEqual([first.id]);
    // Nothing to settle: a claim alone.
    expect(await store.deliveries.settleAndClaim([], { owner: 'b', now: later, ...claimAll })).toEqual({ settled: new Set(), claimed: [] });
  });

  it('keeps a deleted configuration’s attempt log, what it had to deliver failed with a line saying why, until retention prunes it and the configuration', async () => {
    const kept = await linked(7, [{}]);
    const deleted = await linked(7, [{}]);
    await store.deliveries.ingest([point(7), point(7)], now);
    const claimed = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    expect(claimed).toHaveLength(4);
    const ofKept = claimed.filter((c) => c.config.id === kept.id);
    await store.deliveries.settle('a', [settlement(ofKept[0]?.id ?? '', 'delivered')], now);
    await store.deliveries.settle('a', [settlement(ofKept[1]?.id ?? '', 'delivered')], now + 10);
    await store.deliveries.settle(
      'a',
      claimed.filter((c) => c.config.id === deleted.id).map((c) => settlement(c.id, 'retrying', { nextAttemptAt: now + 60_000 })),
      now,
    );
    expect(await attemptLines(location)).toBe(4);
    expect(await store.deleteConfig(deleted.id, now + 20)).toBe(true);
    expect(await store.deleteConfig(deleted.id, now + 30)).toBe(false);
    expect(await store.getConfig(deleted.id)).toBeUndefined();
    expect(await store.getDeletedConfig(deleted.id)).toEqual({ id: deleted.id, companyId: deleted.companyId, deletedAt: now + 20 });
    expect(await store.getDeletedConfig(kept.id)).toBeUndefined();
    expect(await attemptLines(location)).toBe(6);
    const log = (await store.deliveries.pageAttempts(deleted.id, {}, { limit: 10 })).items;
    expect(log.map((a) => [a.outcome, a.attempt, a.nextAttemptAt])).toEqual([
      ['failed', 1, null],
      ['failed', 1, null],
      ['retrying', 0, null],
      ['retrying', 0, null],
    ]);
    expect(log[0]?.error).toBe('not sent: its webhook configuration was deleted');
    // Nothing of it is sent any more, its retries included.
    expect(await store.deliveries.claim({ owner: 'a', now: now + 120_000, ...claimAll })).toEqual([]);
    expect(await store.deliveries.prune(now + 5, 100)).toBe(1);
    expect(await attemptLines(location)).toBe(5);
    expect((await store.deliveries.pageAttempts(kept.id, {}, { limit: 10 })).items.map((a) => a.deliveryId)).toEqual([ofKept[1]?.id]);
    // Past the retention of its deliveries (settled when it was deleted), the deleted configuration goes with them.
    expect(await store.deliveries.prune(now + 21, 100)).toBe(4);
    expect(await store.getDeletedConfig(deleted.id)).toBeUndefined();
    expect(await attemptLines(location)).toBe(0);
  });

  it('a settlement naming its endpoint, as a deliverer writes it, counts only for the holder: of the cursor for a logged point, of the lease for a row', async () => {
    const hook = await linked(7, [{}]);
    const elsewhere = await linked(8, [{}]);
    const at = (configId: string) => ({ endpoint: { configId, wasFailing: false } });
    const noLogs = { limit: 0, perConfig: 10, inFlight: new Map<string, number>(), perCompany: 10, inFlightByCompany: new Map<number, number>() };
    await store.deliveries.ingest([point(7), point(7), point(7)], now);
    const [first, second, third] = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    await store.deliveries.ingest([point(8)], now);
    const [other] = await store.deliveries.claim({ owner: 'c', now, ...claimAll });
    if (!first || !second || !third || other?.config.id !== elsewhere.id) throw new Error('not claimed as staged');
    // a holds the first endpoint's cursor: a point of the other, said to be of the first, is not a's to settle; c's it is.
    expect(await store.deliveries.settle('a', [settlement(other.id, 'delivered', at(hook.id))], now)).toEqual(new Set());
    expect(await store.deliveries.settle('c', [settlement(other.id, 'delivered', at(elsewhere.id))], now)).toEqual(new Set([other.id]));
    // a's first attempt fails: a row, retried later.
    const retried = settlement(first.id, 'retrying', { nextAttemptAt: now + 5000, ...at(hook.id) });
    expect(await store.deliveries.settle('a', [retried], now)).toEqual(new Set([first.id]));
    // a's lease runs out: d leases the retry (rows only), b takes the endpoint's log over.
    const later = now + 10_001;
    expect((await store.deliveries.claim({ owner: 'd', now: later, ...claimAll, logRoom: noLogs })).map((d) => d.id)).toEqual([first.id]);
    expect((await store.deliveries.claim({ owner: 'b', now: later, ...claimAll })).map((d) => d.id)).toEqual([second.id, third.id]);
    // a holds nothing now; b holds the endpoint's cursor but not the retry's lease, which is d's.
    const delivered = (d: { id: string }) => settlement(d.id, 'delivered', at(hook.id));
    expect(await store.deliveries.settle('a', [delivered(second), delivered(first)], later)).toEqual(new Set());
    expect(await store.deliveries.settle('b', [delivered(first)], later)).toEqual(new Set());
    expect(await store.deliveries.settle('b', [delivered(second), delivered(third)], later)).toEqual(new Set([second.id, third.id]));
    expect(await store.deliveries.settle('d', [delivered(first)], later)).toEqual(new Set([first.id]));
    // The attempt log has each attempt once, written by its holder.
    const log = await store.deliveries.pageAttempts(hook.id, {}, { limit: 10 });
    expect(log.items.map((a) => `${a.deliveryId} ${a.outcome}`).sort()).toEqual(
      [`${first.id} retrying`, `${first.id} delivered`, `${second.id} delivered`, `${third.id} delivered`].sort(),
    );
    expect((await store.deliveries.pageAttempts(elsewhere.id, {}, { limit: 10 })).items.map((a) => a.deliveryId)).toEqual([other.id]);
  });

  it('a settlement naming another endpoint than its delivery’s is checked as its delivery’s, and its attempt line goes to that endpoint', async () => {
    const hook = await linked(7, [{}]);
    const elsewhere = await linked(8, [{}]);
    const at = (configId: string) => ({ endpoint: { configId, wasFailing: false } });
    await store.deliveries.ingest([point(7), point(8), point(8)], now);
    const read = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    const ours = read.find((d) => d.config.id === hook.id);
    const [theirs, retried] = read.filter((d) => d.config.id === elsewhere.id);
    if (!ours || !theirs || !retried) throw new Error('not claimed as staged');
    // a holds both endpoints' cursors, and then leases a retry of the other endpoint.
    await store.deliveries.settle('a', [settlement(retried.id, 'retrying', { nextAttemptAt: now + 1000, ...at(elsewhere.id) })], now);
    expect((await store.deliveries.claim({ owner: 'a', now: now + 1000, ...claimAll })).map((d) => d.id)).toEqual([retried.id]);
    // Each named as the other endpoint: still a's, each written to its own endpoint's log.
    const misnamed = [
      settlement(ours.id, 'delivered', at(elsewhere.id)),
      settlement(theirs.id, 'delivered', at(hook.id)),
      settlement(retried.id, 'delivered', { attempt: 1, ...at(hook.id) }),
    ];
    expect(await store.deliveries.settle('a', misnamed, now + 1000)).toEqual(new Set([ours.id, theirs.id, retried.id]));
    const lines = async (configId: string) =>
      (await store.deliveries.pageAttempts(configId, { outcome: 'delivered' }, { limit: 10 })).items.map((a) => a.deliveryId).sort();
    expect(await lines(hook.id)).toEqual([ours.id]);
    expect(await lines(elsewhere.id)).toEqual([theirs.id, retried.id].sort());
  });

  it('a retry comes back at its time with the attempt counted; renewal keeps a lease; release gives it back', async () => {
    await linked(7, [{}]);
    await store.deliveries.ingest([point(7)], now);
    const [first] = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    if (!first) throw new Error('nothing claimed');
    await store.deliveries.settle('a', [settlement(first.id, 'retrying', { nextAttemptAt: now + 5000, error: 'HTTP 500' })], now);
    expect(await store.deliveries.nextDueAt()).toBe(now + 5000);
    expect(await store.deliveries.claim({ owner: 'a', now: now + 4999, ...claimAll })).toEqual([]);
    const [second] = await store.deliveries.claim({ owner: 'a', now: now + 5000, ...claimAll });
    expect(second?.attempts).toBe(1);
    expect(await store.deliveries.renewLeases('b', [String(second?.id)], now + 60_000)).toBe(0);
    expect(await store.deliveries.renewLeases('a', [String(second?.id)], now + 60_000)).toBe(1);
    expect(await store.deliveries.claim({ owner: 'b', now: now + 20_000, ...claimAll })).toEqual([]);
    expect(await store.deliveries.release('a')).toBe(1);
    expect((await store.deliveries.claim({ owner: 'b', now: now + 20_000, ...claimAll })).map((c) => c.id)).toEqual([second?.id]);
  });

  it('a retry-now makes a waiting delivery due at once with its attempts counted; not one in flight, nor a settled one, nor another configuration’s', async () => {
    const own = await linked(7, [{}]);
    const other = await linked(8, [{}]);
    await store.deliveries.ingest([point(7), point(8)], now);
    const claimed = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    const first = claimed.find((c) => c.config.id === own.id);
    if (!first) throw new Error('nothing claimed');
    // Leased: a deliverer is sending it.
    expect(await store.deliveries.retryNow(own.id, first.id, now + 1)).toBe('in-flight');
    await store.deliveries.settle('a', [settlement(first.id, 'retrying', { nextAttemptAt: now + 3_600_000, error: 'HTTP 500' })], now);
    expect(await store.deliveries.claim({ owner: 'a', now: now + 2, ...claimAll })).toEqual([]);
    expect(await store.deliveries.retryNow(other.id, first.id, now + 2)).toBe('not-found');
    expect(await store.deliveries.retryNow(own.id, 'no-such-delivery', now + 2)).toBe('not-found');
    expect(await store.deliveries.retryNow(own.id, first.id, now + 2)).toEqual({ nextAttemptAt: now + 2 });
    const [again] = await store.deliveries.claim({ owner: 'a', now: now + 2, ...claimAll });
    expect(again).toMatchObject({ id: first.id, attempts: 1, webhookId: first.webhookId });
    await store.deliveries.settle('a', [settlement(first.id, 'delivered', { attempt: 1 })], now + 3);
    expect(await store.deliveries.retryNow(own.id, first.id, now + 4)).toBe('settled');
  });

  it('claims at most perConfig of one configuration less what is in flight, so one endpoint cannot take every slot', async () => {
    const slow = await linked(7, [{}]);
    const other = await linked(8, [{}]);
    await store.deliveries.ingest([...Array.from({ length: 10 }, () => point(7)), point(8)], now);
    const claimed = await store.deliveries.claim({ owner: 'a', now, leaseMs: 10_000, limit: 100, perConfig: 4, inFlight: new Map([[slow.id, 1]]) });
    expect(claimed.filter((c) => c.config.id === slow.id)).toHaveLength(3);
    expect(claimed.filter((c) => c.config.id === other.id)).toHaveLength(1);
    const none = await store.deliveries.claim({ owner: 'a', now, leaseMs: 10_000, limit: 100, perConfig: 4, inFlight: new Map([[slow.id, 4]]) });
    expect(none).toEqual([]);
  });

  it('claims at most perCompany of one company’s configurations together, less what is in flight', async () => {
    const first = await linked(7, [{}]);
    const second = await linked(7, [{}]);
    const otherCompany = await linked(9, [{}], { companyId: 2 });
    await store.deliveries.ingest([point(7), point(7), point(7), point(9)], now);
    const claimed = await store.deliveries.claim({
      owner: 'a',
      now,
      leaseMs: 10_000,
      limit: 100,
      perConfig: 10,
      inFlight: new Map(),
      perCompany: 4,
      inFlightByCompany: new Map([[1, 1]]),
    });
    const ofCompany1 = claimed.filter((c) => c.config.companyId === 1);
    expect(ofCompany1).toHaveLength(3);
    expect(new Set(ofCompany1.map((c) => c.config.id))).toEqual(new Set([first.id, second.id]));
    expect(claimed.filter((c) => c.config.id === otherCompany.id)).toHaveLength(1);
    const none = await store.deliveries.claim({ owner: 'a', now, ...claimAll, perCompany: 4, inFlightByCompany: new Map([[1, 4]]) });
    expect(none.filter((c) => c.config.companyId === 1)).toEqual([]);
  });

  describe('with batches of 2 points and a linger of 1 s', () => {
    let batched: WebhookDatabase;
    beforeEach(async () => {
      // The test's new, empty store opened again with these rules.
      await store.close();
      store = await location.open({ batch: { maxPoints: 2, lingerMs: 1000 } });
      batched = store;
    });

    it('puts Batch points in a batch per configuration, gateway and measurement as they come: due at once when full, the rest when the linger ends', async () => {
      const batch = await linked(7, [{}], { deliveryMode: 'Batch' });
      const temperature = (value: number) => point(7, 'modbus', 'temperature', value);
      await batched.deliveries.ingest(
        [...Array.from({ length: 5 }, (_, i) => temperature(i)), point(7, 'modbus', 'pressure'), { ...point(7), gatewayId: 'gw-2' }],
        now,
      );
      expect(await batched.deliveries.stats()).toEqual({ queued: 2, gathering: 3, oldestAcceptedAt: now });
      const full = await batched.deliveries.claim({ owner: 'a', now, ...claimAll });
      expect(full.map((c) => c.points.length)).toEqual([2, 2]);
      expect(full.flatMap((c) => c.points.map((p) => (JSON.parse(p) as { Fields: { value: number } }).Fields.value))).toEqual([0, 1, 2, 3]);
      expect(await batched.deliveries.nextDueAt()).toBe(now + 1000);

      // A later point joins its group's open batch, which is then full and due at once; the linger is counted from the first point.
      await batched.deliveries.ingest([temperature(5)], now + 500);
      const joined = await batched.deliveries.claim({ owner: 'a', now: now + 500, ...claimAll });
      expect(joined.map((c) => c.points.map((p) => (JSON.parse(p) as { Fields: { value: number } }).Fields.value))).toEqual([[4, 5]]);
      expect(await batched.deliveries.claim({ owner: 'a', now: now + 999, ...claimAll })).toEqual([]);
      const rest = await batched.deliveries.claim({ owner: 'a', now: now + 1000, ...claimAll });
      expect(rest.map((c) => [c.gatewayId, c.measurement, c.points.length]).sort()).toEqual([
        ['gw-1', 'pressure', 1],
        ['gw-2', 'temperature', 1],
      ]);
      expect([...full, ...joined, ...rest].every((c) => c.mode === 'Batch' && c.config.id === batch.id && c.attempts === 0)).toBe(true);
      expect(new Set([...full, ...joined, ...rest].map((c) => c.webhookId)).size).toBe(5);
    });

    it('closes a batch as it is claimed: a point that comes later goes into a new one', async () => {
      await linked(7, [{}], { deliveryMode: 'Batch' });
      await batched.deliveries.ingest([point(7, 'modbus', 'temperature', 1)], now);
      const [first] = await batched.deliveries.claim({ owner: 'a', now: now + 1000, ...claimAll });
      await batched.deliveries.ingest([point(7, 'modbus', 'temperature', 2)], now + 1000);
      // Released (a shutdown), the claimed batch is not opened again.
      await batched.deliveries.release('a');
      const again = await batched.deliveries.claim({ owner: 'b', now: now + 2000, ...claimAll });
      expect(again.map((c) => [c.id, c.points.map((p) => (JSON.parse(p) as { Fields: { value: number } }).Fields.value)])).toEqual([
        [first?.id, [1]],
        [expect.not.stringMatching(first?.id ?? ''), [2]],
      ]);
    });

    it('loses no point and overfills no batch while ingests of one group race each other and a deliverer claiming', async () => {
      await linked(7, [{}], { deliveryMode: 'Batch' });
      const sent: number[] = [];
      const claimed: string[][] = [];
      /** Boxed: the loop below reads what the ingests' end sets. */
      const ingesting = { on: true };
      const claiming = (async () => {
        while (ingesting.on) {
          claimed.push(...(await batched.deliveries.claim({ owner: 'a', now: now + 1000, ...claimAll })).map((c) => c.points));
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      })();
      await Promise.all(
        Array.from({ length: 20 }, async (_, request) => {
          const values = Array.from({ length: 3 }, (_, i) => request * 3 + i);
          sent.push(...values);
          await batched.deliveries.ingest(
            values.map((value) => point(7, 'modbus', 'temperature', value)),
            now,
          );
        }),
      );
      ingesting.on = false;
      await claiming;
      claimed.push(...(await batched.deliveries.claim({ owner: 'a', now: now + 1000, ...claimAll })).map((c) => c.points));
      const values = claimed.flat().map((p) => (JSON.parse(p) as { Fields: { value: number } }).Fields.value);
      expect(values.sort((a, b) => a - b)).toEqual(sent.sort((a, b) => a - b));
      expect(Math.max(...claimed.map((points) => points.length))).toBe(2);
      expect(await batched.deliveries.stats()).toMatchObject({ gathering: 0 });
    });
  });

  it('an unlink takes the device out of everything still queued; a deletion takes the configuration’s whole queue', async () => {
    const realtime = await linked(7, [{}]);
    await store.linkDevice({ webhookConfigId: realtime.id, deviceId: 8, createdAt: new Date().toISOString() });
    await store.createScope(realtime.id, 8, scope());
    const batch = await linked(7, [{}], { deliveryMode: 'Batch' });
    await store.linkDevice({ webhookConfigId: batch.id, deviceId: 8, createdAt: new Date().toISOString() });
    await store.createScope(batch.id, 8, scope());
    await store.deliveries.ingest([point(7), point(8), point(7), point(8)], now);

    expect(await store.unlinkDevice(realtime.id, 7)).toBe(true);
    expect(await store.unlinkDevice(batch.id, 7)).toBe(true);
    // Past the batch's linger.
    const left = await store.deliveries.claim({ owner: 'a', now: now + 1000, ...claimAll });
    const deviceOf = (p: string) => (p === point(8).point ? 8 : 7);
    expect(left.filter((c) => c.config.id === realtime.id).flatMap((c) => c.points.map(deviceOf))).toEqual([8, 8]);
    expect(left.filter((c) => c.config.id === batch.id).flatMap((c) => c.points.map(deviceOf))).toEqual([8, 8]);

    await store.deliveries.ingest([point(8)], now);
    await store.deleteConfig(realtime.id);
    // What is left is the Batch configuration's: the batch 'a' let go, and the new point's.
    expect(await store.deliveries.claim({ owner: 'b', now: now + 20_000, ...claimAll }).then((c) => c.map((d) => d.config.id))).toEqual([batch.id, batch.id]);
    expect((await store.deliveries.stats()).queued).toBe(2);
  });

  it('resends a dropped delivery as a new one with its points; a delivered or queued one is refused; prune removes what settled long ago', async () => {
    const created = await linked(7, [{}]);
    await store.deliveries.ingest([point(7), point(7)], now);
    const [a, b] = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    if (!a || !b) throw new Error('not claimed');
    await store.deliveries.settle('a', [settlement(a.id, 'dropped', { status: 400 }), settlement(b.id, 'delivered')], now);
    const resent = await store.deliveries.resend(created.id, a.id, now + 1);
    if (typeof resent !== 'object') throw new Error(`not resent: ${resent}`);
    expect(await store.deliveries.resend(created.id, b.id, now)).toBe('delivered');
    expect(await store.deliveries.resend(created.id, resent.resent, now)).toBe('not-settled');
    expect(await store.deliveries.resend(randomUUID(), a.id, now)).toBe('not-found');
    const [again] = await store.deliveries.claim({ owner: 'a', now: now + 1, ...claimAll });
    expect(again).toMatchObject({ id: resent.resent, attempts: 0, points: a.points });

    expect(await store.deliveries.prune(now + 1, 100)).toBe(2);
    expect((await store.deliveries.pageAttempts(created.id, {}, { limit: 10 })).items).toEqual([]);
  });

  it('resends only points of devices still linked, and one resend at a time', async () => {
    const created = await linked(7, [{}]);
    await store.linkDevice({ webhookConfigId: created.id, deviceId: 8, createdAt: new Date().toISOString() });
    await store.createScope(created.id, 8, scope());
    await store.deliveries.ingest([point(7), point(8)], now);
    const claimed = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    await store.deliveries.settle(
      'a',
      claimed.map((c) => settlement(c.id, 'failed')),
      now,
    );
    const [of7, of8] = claimed;
    if (!of7 || !of8) throw new Error('not claimed');
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => store.deliveries.resend(created.id, of8.id, now)));
    expect(concurrent.filter((r) => typeof r === 'object')).toHaveLength(1);
    expect(concurrent.filter((r) => r === 'resend-queued')).toHaveLength(4);
    await store.unlinkDevice(created.id, 7);
    expect(await store.deliveries.resend(created.id, of7.id, now)).toBe('unlinked');
  });

  it('reads every point of an endpoint log once while ingests of the endpoint race each other and its cursor holder reading', async () => {
    await linked(7, [{}]);
    // The endpoint's cursor row, made by a first ingest: the ingests below then go the usual way (on PostgreSQL one statement each).
    await store.deliveries.ingest([point(7, 'modbus', 'temperature', -1)], now);
    const sent: number[] = [-1];
    const read: number[] = [];
    const valuesOf = (claimed: readonly { points: readonly string[] }[]) =>
      claimed.flatMap((c) => c.points.map((p) => (JSON.parse(p) as { Fields: { value: number } }).Fields.value));
    for (let round = 0; round < 5; round++) {
      /** Boxed: the loop below reads what the ingests' end sets. */
      const ingesting = { on: true };
      // One holder reading the log as it grows: it reads past what it has read, so a point committed
      // after a later one was read (positions committing out of order) would never be read.
      const reading = (async () => {
        while (ingesting.on) {
          read.push(...valuesOf(await store.deliveries.claim({ owner: 'a', now, ...claimAll })));
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      await Promise.all(
        Array.from({ length: 20 }, async (_, request) => {
          const values = Array.from({ length: 3 }, (_, i) => round * 100 + request * 3 + i);
          sent.push(...values);
          await store.deliveries.ingest(
            values.map((value) => point(7, 'modbus', 'temperature', value)),
            now,
          );
        }),
      );
      ingesting.on = false;
      await reading;
    }
    read.push(...valuesOf(await store.deliveries.claim({ owner: 'a', now, ...claimAll })));
    expect(read.sort((a, b) => a - b)).toEqual(sent.sort((a, b) => a - b));
  });

  it('rechecks points read ahead from an endpoint log: sendable as the configuration is now; paused, given back to the log; deleted, neither', async () => {
    const cfg = await linked(7, [{}]);
    const gone = await linked(7, [{}]);
    await store.deliveries.ingest([point(7), point(7), point(7)], now);
    const read = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    const of = (config: StoredConfig) => read.filter((c) => c.config.id === config.id).map((c) => ({ id: c.id, points: 1 }));
    const [first, ...rest] = of(cfg);
    if (!first) throw new Error('nothing read');
    expect(rest).toHaveLength(2);
    expect(read.every((c) => c.logged)).toBe(true);

    const fine = await store.deliveries.settleAndRecheck([], 'a', of(cfg), now);
    expect([...fine.sendable.keys()].sort()).toEqual(
      of(cfg)
        .map((h) => h.id)
        .sort(),
    );
    expect(fine.setBack).toEqual(new Set());
    expect(await store.deliveries.settleAndRecheck([], 'b', of(cfg), now)).toMatchObject({ sendable: new Map(), setBack: new Set() });

    // The first one's attempt answered 429 for a minute: the others are given back to the log, and read again once the pause is over.
    const paused = await store.deliveries.settleAndRecheck(
      [
        settlement(first.id, 'retrying', {
          status: 429,
          startedAt: now,
          nextAttemptAt: now + 60_000,
          endpoint: { configId: cfg.id, wasFailing: false, pauseMs: 60_000 },
        }),
      ],
      'a',
      rest,
      now,
    );
    expect(paused.settled).toEqual(new Set([first.id]));
    expect(paused.sendable).toEqual(new Map());
    expect(paused.setBack).toEqual(new Set([cfg.id]));
    expect(await store.deliveries.claim({ owner: 'a', now: now + 1, ...claimAll })).toEqual([]);
    const again = await store.deliveries.claim({ owner: 'a', now: now + 61_000, ...claimAll });
    expect(again.map((c) => c.id).sort()).toEqual([first.id, ...rest.map((h) => h.id)].sort());

    expect(await store.deleteConfig(gone.id, now)).toBe(true);
    expect(await store.deliveries.settleAndRecheck([], 'a', of(gone), now)).toMatchObject({ sendable: new Map(), setBack: new Set() });
  });

  it('sends nothing held past its lease (another deliverer may have it now): a point read ahead goes back to its log, a claimed row is not sent', async () => {
    const cfg = await linked(7, [{}]);
    await store.deliveries.ingest([point(7), point(7), point(7)], now);
    const read = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    const [first, ...rest] = read.map((c) => ({ id: c.id, points: 1 }));
    if (!first) throw new Error('nothing read');
    const atTheEnd = await store.deliveries.settleAndRecheck([], 'a', [first, ...rest], now + claimAll.leaseMs);
    expect([...atTheEnd.sendable.keys()].sort()).toEqual(read.map((c) => c.id).sort());

    // The cursor's lease has run out: set back, and read again (here by its holder, which takes it anew).
    const late = now + claimAll.leaseMs + 1;
    expect(await store.deliveries.settleAndRecheck([], 'a', rest, late)).toMatchObject({ sendable: new Map(), setBack: new Set([cfg.id]) });
    const again = await store.deliveries.claim({ owner: 'a', now: late, ...claimAll });
    expect(again.map((c) => c.id)).toEqual(rest.map((h) => h.id));

    // A row (the first point's retry) claimed, held past its lease: not sent.
    await store.deliveries.settle('a', [settlement(first.id, 'retrying', { status: 503, startedAt: late, nextAttemptAt: late })], late);
    const [row] = (await store.deliveries.claim({ owner: 'a', now: late, ...claimAll })).filter((c) => c.id === first.id);
    if (!row) throw new Error('the retry was not claimed');
    const later = late + claimAll.leaseMs + 1;
    expect(await store.deliveries.settleAndRecheck([], 'a', [{ id: row.id, points: 1 }], later)).toMatchObject({ sendable: new Map() });
  });

  it('queues nothing for a device whose unlink raced the ingest', async () => {
    for (let round = 0; round < 10; round++) {
      const created = await linked(7, [{}]);
      const [, unlinked] = await Promise.all([
        store.deliveries.ingest(
          Array.from({ length: 50 }, () => point(7)),
          now,
        ),
        store.unlinkDevice(created.id, 7),
      ]);
      expect(unlinked).toBe(true);
    }
    expect(await store.deliveries.stats()).toMatchObject({ queued: 0, gathering: 0 });
  });

  it('pages the attempt log newest first and filters it by outcome', async () => {
    const created = await linked(7, [{}]);
    await store.deliveries.ingest([point(7), point(7), point(7)], now);
    const claimed = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    const outcomes = ['delivered', 'dropped', 'failed'] as const;
    await store.deliveries.settle(
      'a',
      claimed.map((c, i) => settlement(c.id, outcomes[i] ?? 'failed')),
      now,
    );
    const first = await store.deliveries.pageAttempts(created.id, {}, { limit: 2 });
    expect(first.items.map((a) => a.outcome)).toEqual(['failed', 'dropped']);
    const second = await store.deliveries.pageAttempts(created.id, {}, { limit: 2, after: first.next });
    expect(second).toMatchObject({ items: [{ outcome: 'delivered' }], next: undefined });
    expect((await store.deliveries.pageAttempts(created.id, { outcome: 'dropped' }, { limit: 10 })).items.map((a) => a.outcome)).toEqual(['dropped']);
  });
});
