// Endpoint health end to end, on SQLite and PostgreSQL: the real API with its deliverer and a real
// receiver. An endpoint that answers 410 Gone, or fails every attempt for WEBHOOK_DISABLE_AFTER, is
// disabled by the deliverer; a manager disables and enables one by PUT. While disabled, new points
// are not queued (and counted), what was queued waits (due, yet not sent) until the endpoint is
// enabled again or the delivery is older than the maximum age.
import { startPlatform } from '@platform/dev-platform/testing';
import { startedForTests, until } from '@platform/tool-sdk/testing';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { startReceiver, type Receiver } from './receiver.ts';
import { newStoreLocation, startedApiForTests, startWebhookApi, telemetryPoint, type ApiClient, type Backend, type RunningApi } from './harness.ts';

const platform = startedForTests(() => startPlatform());
const boiler = 1001;

interface Config {
  id: string;
  name: string;
  url: string;
  deliveryMode: string;
  status: string;
  disabledReason: string | null;
  disabledAt: string | null;
}
interface Attempt {
  deliveryId: string;
  outcome: string;
  error: string | null;
  nextAttemptAt: string | null;
}

/** A metric's value in the registry's text, 0 when the series is not there. */
async function metric(api: RunningApi, series: string): Promise<number> {
  const text = await api.metrics.registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe.each<Backend>(['SQLite', 'PostgreSQL'])('endpoint health on %s', (backend) => {
  // Retries every 20 ms, many of them; disabled after 300 ms of failures with at least 3 attempts.
  const api = startedApiForTests(backend, () => platform().issuer, {
    deliverer: { retrySchedule: Array.from({ length: 50 }, () => 20), disableAfterMs: 300, disableMinAttempts: 3 },
  });
  let oscar: ApiClient;
  let receiver: Receiver;
  beforeAll(async () => {
    oscar = await api().clientAs('oscar');
  });
  const made: string[] = [];
  afterEach(async () => {
    for (const id of made.splice(0)) await oscar('DELETE', `/v2/webhooks/${id}`);
    await receiver.close();
  });

  async function hook(name: string): Promise<Config> {
    const created = await oscar('POST', '/v2/webhooks?companyId=1', { name, url: `${receiver.url}/${name}`, deliveryMode: 'Realtime' });
    expect(created.status).toBe(201);
    const config = created.body as Config;
    made.push(config.id);
    expect((await oscar('POST', `/v2/webhooks/${config.id}/devices/${boiler}`)).status).toBe(201);
    expect((await oscar('POST', `/v2/webhooks/${config.id}/devices/${boiler}/routes`, { scopeLevel: 'Device' })).status).toBe(201);
    return config;
  }
  const get = async (id: string) => (await oscar('GET', `/v2/webhooks/${id}`)).body as Config;
  const put = (config: Config, status: 'Active' | 'Disabled') =>
    oscar('PUT', `/v2/webhooks/${config.id}`, { name: config.name, url: config.url, deliveryMode: config.deliveryMode, status });
  const attempts = async (id: string) => (await oscar('GET', `/v2/webhooks/${id}/deliveries`)).body as Attempt[];
  const idle = () => {
    const delivery = api().delivery;
    if (!delivery) throw new Error('no deliverer');
    return delivery.deliverer.whenIdle();
  };

  it('is Active with no reason when created', async () => {
    receiver = await startReceiver();
    const config = await hook('new');
    expect(config).toMatchObject({ status: 'Active', disabledReason: null, disabledAt: null });
  });

  it('is disabled at once when the endpoint answers 410 Gone, said in the attempt log, the log and a metric; new points are then not queued', async () => {
    receiver = await startReceiver({ respond: () => ({ status: 410 }) });
    const config = await hook('gone');
    const before = await metric(api(), 'webhook_endpoints_disabled_total{cause="gone"}');
    expect((await api().ingest([telemetryPoint(boiler)])).body).toEqual({ accepted: 1, queued: 1 });
    await receiver.waitFor(1);
    await idle();
    const disabled = await get(config.id);
    expect(disabled).toMatchObject({ status: 'Disabled', disabledReason: 'the endpoint answered 410 Gone' });
    expect(Date.parse(disabled.disabledAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect((await attempts(config.id))[0]).toMatchObject({
      outcome: 'dropped',
      error: 'the endpoint answered 410; a 4xx other than 429 is not retried; the endpoint is disabled: the endpoint answered 410 Gone',
    });
    expect(await metric(api(), 'webhook_endpoints_disabled_total{cause="gone"}')).toBe(before + 1);
    expect(api().logs.filter((line) => line.includes(config.id) && line.includes('a webhook endpoint was disabled'))).toHaveLength(1);
    const notQueued = await metric(api(), 'webhook_points_not_queued_total{reason="endpoint_disabled"}');
    expect((await api().ingest([telemetryPoint(boiler)])).body).toEqual({ accepted: 1, queued: 0 });
    expect(await metric(api(), 'webhook_points_not_queued_total{reason="endpoint_disabled"}')).toBe(notQueued + 1);
    await idle();
    expect(receiver.received).toHaveLength(1);
  });

  it('is disabled once every attempt failed for WEBHOOK_DISABLE_AFTER; what was queued waits, due yet not sent, and goes once enabled again', async () => {
    receiver = await startReceiver({ respond: () => ({ status: 503 }) });
    const config = await hook('failing');
    await api().ingest([telemetryPoint(boiler, { tags: { n: '1' } }), telemetryPoint(boiler, { tags: { n: '2' } })]);
    await until(async () => (await get(config.id)).status === 'Disabled', 'the endpoint is disabled', 10_000);
    expect((await get(config.id)).disabledReason).toMatch(/^every attempt failed for \d+(ms|s|s \d+ms) \(\d+ attempts since \d{4}-\d\d-\d\dT[\d:.]+Z\)$/);
    await idle();
    const sent = receiver.received.length;
    expect(sent).toBeGreaterThanOrEqual(3);
    // Made due now: a deliverer passes it over all the same while the endpoint is disabled.
    const waiting = (await attempts(config.id)).find((a) => a.nextAttemptAt !== null);
    if (!waiting) throw new Error('no delivery waits for its retry');
    expect((await oscar('POST', `/v2/webhooks/${config.id}/deliveries/${waiting.deliveryId}/retry`)).status).toBe(202);
    await idle();
    expect(receiver.received).toHaveLength(sent);
    expect((await api().store.deliveries.stats()).queued).toBe(2);
    // Fixed and enabled: both are delivered, and the endpoint's health starts afresh.
    receiver.respond(() => ({ status: 200 }));
    const enabled = await put(config, 'Active');
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ status: 'Active', disabledReason: null, disabledAt: null });
    const delivered = await receiver.waitFor(sent + 2);
    expect(new Set(delivered.slice(sent).map((r) => (r.json as { Point: { Tags: { n: string } } }).Point.Tags.n))).toEqual(new Set(['1', '2']));
    await idle();
    expect((await api().store.deliveries.stats()).queued).toBe(0);
  });

  it('is disabled and enabled by a manager’s PUT; a PUT without status keeps it', async () => {
    receiver = await startReceiver();
    const config = await hook('manual');
    const answer = await put(config, 'Disabled');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'Disabled', disabledReason: 'disabled by a manager (PUT with status Disabled)' });
    const disabledAt = (answer.body as Config).disabledAt;
    expect(disabledAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    // A rename leaves it disabled, with the same reason and time.
    const renamed = await oscar('PUT', `/v2/webhooks/${config.id}`, { name: 'renamed', url: config.url, deliveryMode: 'Realtime' });
    expect(renamed.body).toMatchObject({ name: 'renamed', status: 'Disabled', disabledAt });
    expect((await api().ingest([telemetryPoint(boiler)])).body).toEqual({ accepted: 1, queued: 0 });
    expect((await put({ ...config, name: 'renamed' }, 'Active')).body).toMatchObject({ status: 'Active', disabledReason: null });
    expect((await api().ingest([telemetryPoint(boiler)])).body).toEqual({ accepted: 1, queued: 1 });
    await receiver.waitFor(1);
    await idle();
    expect(receiver.received).toHaveLength(1);
  });

  it('refuses a status that is neither Active nor Disabled, naming the field, and changes nothing', async () => {
    receiver = await startReceiver();
    const config = await hook('bad-status');
    const answer = await oscar('PUT', `/v2/webhooks/${config.id}`, { name: config.name, url: config.url, deliveryMode: 'Realtime', status: 'Paused' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: { code: 'VALIDATION_FAILED', message: 'status: must be one of Active, Disabled', field: 'status' } });
    expect((await get(config.id)).status).toBe('Active');
    // Not a field of a create: a configuration starts Active.
    const created = await oscar('POST', '/v2/webhooks?companyId=1', { name: 'x', url: config.url, deliveryMode: 'Realtime', status: 'Disabled' });
    expect(created.status).toBe(400);
    expect((created.body as { error: { field: string } }).error.field).toBe('status');
  });
});

describe.each<Backend>(['SQLite', 'PostgreSQL'])('a disabled endpoint’s deliveries past the maximum age on %s', (backend) => {
  it('are failed, with a line in the attempt log, and never sent', { timeout: 30_000 }, async () => {
    // A first retry a second after the first attempt, and a maximum age of 1.5 s: the retry falls
    // due while the endpoint is disabled, and the delivery ages past the maximum as it waits.
    const api = await startWebhookApi({
      location: await newStoreLocation(backend, inject('postgresUrl')),
      platformUrl: platform().issuer,
      deliverer: { retrySchedule: [1_000, 1_000], maxAgeMs: 1_500 },
    });
    const receiver = await startReceiver({ respond: () => ({ status: 503 }) });
    try {
      const oscar = await api.clientAs('oscar');
      const created = await oscar('POST', '/v2/webhooks?companyId=1', { name: 'aging', url: `${receiver.url}/aging`, deliveryMode: 'Realtime' });
      const { id } = created.body as Config;
      await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}`);
      await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}/routes`, { scopeLevel: 'Device' });
      await api.ingest([telemetryPoint(boiler)]);
      await receiver.waitFor(1);
      expect(
        (await oscar('PUT', `/v2/webhooks/${id}`, { name: 'aging', url: `${receiver.url}/aging`, deliveryMode: 'Realtime', status: 'Disabled' })).status,
      ).toBe(200);
      const failedBefore = await metric(api, 'webhook_deliveries_total{outcome="failed"}');
      await until(
        async () => ((await oscar('GET', `/v2/webhooks/${id}/deliveries`)).body as Attempt[]).some((a) => a.outcome === 'failed'),
        'the waiting delivery is failed',
        10_000,
      );
      const log = (await oscar('GET', `/v2/webhooks/${id}/deliveries`)).body as Attempt[];
      expect(log.map((a) => [a.outcome, a.error])).toEqual([
        ['failed', 'not sent: older than the maximum delivery age (1s 500ms) while its endpoint was disabled'],
        ['retrying', 'the endpoint answered 503'],
      ]);
      expect(await metric(api, 'webhook_deliveries_total{outcome="failed"}')).toBe(failedBefore + 1);
      expect(receiver.received).toHaveLength(1);
      expect((await api.store.deliveries.stats()).queued).toBe(0);
    } finally {
      await receiver.close();
      await api.close();
    }
  });
});
