import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { newStoreLocation, type Backend, type StoreLocation } from '../../test/harness.ts';
import { storedConfig } from '../../test/stored-config.ts';
import type { WebhookDatabase } from '../database.ts';
import type { StoredConfig } from '../store/records.ts';
import type { DisabledEndpoint, QueuedPoint, Settlement } from './delivery-queue.ts';
import { endpointReports, goneReason } from './endpoint-health.ts';

const attempt = (id: string, outcome: Settlement['outcome'], startedAt: number, extra: Partial<Settlement> = {}): Settlement => ({
  id,
  outcome,
  attempt: 0,
  status: outcome === 'delivered' ? 200 : 503,
  error: outcome === 'delivered' ? null : 'the endpoint answered 503',
  responseBody: '',
  startedAt,
  durationMs: 1,
  pointCount: 1,
  endpoint: { configId: 'cfg', wasFailing: false },
  ...extra,
});

describe('what one write of settlements says of an endpoint', () => {
  const all = (settlements: Settlement[]) => new Set(settlements.map((s) => s.id));

  it('is nothing while every attempt delivered to a healthy endpoint', () => {
    const settlements = [attempt('a', 'delivered', 1), attempt('b', 'delivered', 2)];
    expect(endpointReports(settlements, all(settlements))).toEqual([]);
  });

  it('counts the failed attempts after the last delivered one, from the first of them', () => {
    const settlements = [attempt('c', 'retrying', 30), attempt('a', 'failed', 10), attempt('b', 'delivered', 20), attempt('d', 'dropped', 40)];
    expect(endpointReports(settlements, all(settlements))).toEqual([
      { configId: 'cfg', recovered: true, failures: 2, firstFailureAt: 30, lastFailure: { deliveryId: 'd' }, gone: false, pausedUntil: null },
    ]);
  });

  it('ends a run of failures with a delivered attempt to an endpoint that was failing', () => {
    const settlements = [attempt('a', 'delivered', 1, { endpoint: { configId: 'cfg', wasFailing: true } })];
    expect(endpointReports(settlements, all(settlements))).toEqual([
      { configId: 'cfg', recovered: true, failures: 0, firstFailureAt: null, lastFailure: undefined, gone: false, pausedUntil: null },
    ]);
  });

  it('tells a 410 Gone apart, and leaves out settlements not written and those of no endpoint', () => {
    const settlements = [
      attempt('a', 'dropped', 1, { status: 410 }),
      attempt('b', 'failed', 2, { endpoint: { configId: 'other', wasFailing: false } }),
      attempt('c', 'failed', 3, { endpoint: undefined }),
    ];
    expect(endpointReports(settlements, new Set(['a', 'c']))).toEqual([
      { configId: 'cfg', recovered: false, failures: 1, firstFailureAt: 1, lastFailure: { deliveryId: 'a' }, gone: true, pausedUntil: null },
    ]);
  });
});

const point = (deviceId: number): QueuedPoint => ({
  deviceId,
  gatewayId: 'gw-1',
  connectionTag: 'modbus',
  measurement: 'temperature',
  point: JSON.stringify({ Measurement: 'temperature', Fields: { value: 1 }, Tags: {}, UtcTimestamp: '2026-11-22T12:00:00.000Z' }),
});
const claimAll = { leaseMs: 10_000, limit: 100, perConfig: 100, inFlight: new Map<string, number>() };

describe.each<Backend>(['SQLite', 'PostgreSQL'])('endpoint health on %s', (backend) => {
  let store: WebhookDatabase;
  let location: StoreLocation;
  let disabled: DisabledEndpoint[];
  const now = 1_000_000;
  beforeEach(async () => {
    location = await newStoreLocation(backend, inject('postgresUrl'), { copySchema: true });
    store = await location.open({ health: { disableAfterMs: 1_000, minFailedAttempts: 3 } });
    disabled = [];
    store.deliveries.onEndpointDisabled((endpoint) => disabled.push(endpoint));
  });
  afterEach(async () => {
    await store.close();
  });

  async function linked(deviceId = 7): Promise<StoredConfig> {
    const created = await store.createConfig(storedConfig({ url: 'http://127.0.0.1:9/hook' }));
    if (created === 'limit-reached') throw new Error('limit');
    await store.linkDevice({ webhookConfigId: created.id, deviceId, createdAt: new Date().toISOString() });
    await store.createScope(created.id, deviceId, { id: randomUUID(), scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true });
    return created;
  }
  /** Claims what is due at `at` and settles each as `outcome` started then, as a deliverer would with the configuration it read. */
  async function attemptAll(at: number, outcome: Settlement['outcome'], extra: Partial<Settlement> = {}): Promise<string[]> {
    const claimed = await store.deliveries.claim({ owner: 'a', now: at, ...claimAll });
    await store.deliveries.settle(
      'a',
      claimed.map((d) =>
        attempt(d.id, outcome, at, {
          endpoint: { configId: d.config.id, wasFailing: d.config.health.failingSince !== null },
          ...(outcome === 'retrying' && { nextAttemptAt: at + 1 }),
          ...extra,
        }),
      ),
      at,
    );
    return claimed.map((d) => d.id);
  }
  const attemptLog = async (configId: string) => (await store.deliveries.pageAttempts(configId, {}, { limit: 100 })).items;

  it('disables an endpoint whose every attempt failed for the stated time with enough attempts in it, once, saying why in the attempt log', async () => {
    const config = await linked();
    await store.deliveries.ingest([point(7)], now);
    expect(await attemptAll(now, 'retrying')).toHaveLength(1);
    expect((await store.getConfig(config.id))?.health).toEqual({ failingSince: now, failedAttempts: 1, pausedUntil: null });
    await attemptAll(now + 1, 'retrying');
    expect((await store.getConfig(config.id))?.status).toBe('Active');
    // Three attempts now, but not for long enough.
    await attemptAll(now + 999, 'retrying');
    expect(disabled).toEqual([]);
    expect((await store.getConfig(config.id))?.status).toBe('Active');
    // Long enough.
    await attemptAll(now + 1_001, 'retrying');
    const reason = `every attempt failed for 1s 1ms (4 attempts since ${new Date(now).toISOString()})`;
    expect(disabled).toEqual([{ configId: config.id, companyId: 1, reason, cause: 'failing' }]);
    expect(await store.getConfig(config.id)).toMatchObject({ status: 'Disabled', disabledReason: reason, disabledAt: new Date(now + 1_001).toISOString() });
    expect((await attemptLog(config.id))[0]?.error).toBe(`the endpoint answered 503; the endpoint is disabled: ${reason}`);
    expect((await attemptLog(config.id))[1]?.error).toBe('the endpoint answered 503');
  });

  it('counts one run across deliverers, and disables the endpoint once whichever of them brings it to the rules', async () => {
    const config = await linked();
    const other = await location.open({ health: { disableAfterMs: 1_000, minFailedAttempts: 3 } });
    const otherDisabled: DisabledEndpoint[] = [];
    other.deliveries.onEndpointDisabled((endpoint) => otherDisabled.push(endpoint));
    try {
      await store.deliveries.ingest([point(7), point(7), point(7), point(7)], now);
      const claimed = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
      const settleOn = (queue: WebhookDatabase, owner: string, ids: string[], at: number) =>
        queue.deliveries.settle(
          owner,
          ids.map((id) => attempt(id, 'retrying', at, { nextAttemptAt: at + 1, endpoint: { configId: config.id, wasFailing: false } })),
          at,
        );
      // Two deliverers: the first fails two attempts, the second two more a second later, both at once.
      const [a, b, c, d] = claimed.map((delivery) => delivery.id);
      if (!a || !b || !c || !d) throw new Error('four claimed');
      await settleOn(store, 'a', [a, b], now);
      await store.deliveries.release('a');
      await other.deliveries.claim({ owner: 'b', now: now + 2, ...claimAll });
      await Promise.all([settleOn(other, 'b', [c], now + 1_000), settleOn(other, 'b', [d], now + 1_001)]);
      expect((await other.getConfig(config.id))?.status).toBe('Disabled');
      expect([...disabled, ...otherDisabled]).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('counts from the last delivered attempt: one delivery ends the run', async () => {
    const config = await linked();
    await store.deliveries.ingest([point(7), point(7)], now);
    const [first, second] = await store.deliveries.claim({ owner: 'a', now, ...claimAll });
    if (!first || !second) throw new Error('two claimed');
    const endpoint = { configId: config.id, wasFailing: false };
    await store.deliveries.settle('a', [attempt(first.id, 'retrying', now, { endpoint, nextAttemptAt: now + 5_000 })], now);
    expect((await store.getConfig(config.id))?.health).toEqual({ failingSince: now, failedAttempts: 1, pausedUntil: null });
    // Claimed while the endpoint was healthy, delivered after it began to fail: a success all the same.
    await store.deliveries.settle('a', [attempt(second.id, 'delivered', now + 10, { endpoint })], now + 10);
    expect((await store.getConfig(config.id))?.health).toEqual({ failingSince: now, failedAttempts: 1, pausedUntil: null });
    // The next delivered attempt, its configuration read as failing, ends the run.
    await attemptAll(now + 5_000, 'delivered');
    expect((await store.getConfig(config.id))?.health).toEqual({ failingSince: null, failedAttempts: 0, pausedUntil: null });
    expect(disabled).toEqual([]);
  });

  it('disables an endpoint that answers 410 Gone at once', async () => {
    const config = await linked();
    await store.deliveries.ingest([point(7)], now);
    await attemptAll(now, 'dropped', { status: 410, error: 'the endpoint answered 410; a 4xx other than 429 is not retried' });
    expect(disabled).toEqual([{ configId: config.id, companyId: 1, reason: goneReason, cause: 'gone' }]);
    expect(await store.getConfig(config.id)).toMatchObject({ status: 'Disabled', disabledReason: goneReason });
  });

  it('passes over a disabled endpoint: ingest queues nothing new for it, its queued deliveries wait, and fail once older than the maximum age', async () => {
    const config = await linked();
    await store.deliveries.ingest([point(7)], now);
    await store.updateConfig(config.id, (current) => ({ ...current, status: 'Disabled', disabledReason: 'test', disabledAt: new Date(now).toISOString() }));
    expect(await store.deliveries.ingest([point(7)], now + 1)).toEqual({ queued: 0, skipped: 1 });
    expect(await store.deliveries.claim({ owner: 'a', now: now + 10, ...claimAll })).toEqual([]);
    expect(await store.deliveries.nextDueAt()).toBeUndefined();
    expect(await store.deliveries.stats()).toMatchObject({ queued: 1 });
    // Not yet older than the maximum age: still waiting.
    expect(await store.deliveries.expireWaiting(now + 60_000, 60_000, 100)).toBe(0);
    expect(await store.deliveries.expireWaiting(now + 60_001, 60_000, 100)).toBe(1);
    expect(await store.deliveries.stats()).toMatchObject({ queued: 0 });
    expect(await attemptLog(config.id)).toMatchObject([
      { outcome: 'failed', attempt: 0, error: 'not sent: older than the maximum delivery age (1m) while its endpoint was disabled', responseStatus: null },
    ]);
    // Enabled again, it is delivered to as before, its health counted afresh.
    const enabled = await store.updateConfig(config.id, (current) => ({ ...current, status: 'Active', disabledReason: null, disabledAt: null }));
    expect(enabled).toMatchObject({ status: 'Active', health: { failingSince: null, failedAttempts: 0, pausedUntil: null } });
    expect(await store.deliveries.ingest([point(7)], now + 70_000)).toEqual({ queued: 1 });
    expect(await store.deliveries.claim({ owner: 'a', now: now + 70_000, ...claimAll })).toHaveLength(1);
  });

  it('leaves an active endpoint’s old deliveries alone: only a disabled endpoint’s expire', async () => {
    await linked();
    await store.deliveries.ingest([point(7)], now);
    expect(await store.deliveries.expireWaiting(now + 10_000_000, 1_000, 100)).toBe(0);
    expect(await store.deliveries.stats()).toMatchObject({ queued: 1 });
  });
});
