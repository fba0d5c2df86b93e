// Bulk recovery end to end, on SQLite and PostgreSQL: an endpoint down long enough for its
// deliveries to fail, fixed, and everything since the outage sent again with one call, each with the
// webhook-id the receiver saw before; the real API with its deliverer and a real receiver.
import { startPlatform } from '@platform/dev-platform/testing';
import { startedForTests, until } from '@platform/tool-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHook, startedApiForTests, telemetryPoint, type ApiClient, type Backend } from './harness.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const platform = startedForTests(() => startPlatform());
const boiler = 1001;

interface Attempt {
  deliveryId: string;
  outcome: string;
}

describe.each<Backend>(['SQLite', 'PostgreSQL'])('recovering deliveries on %s', (backend) => {
  // Two quick retries, then failed.
  const api = startedApiForTests(backend, () => platform().issuer, { deliverer: { retrySchedule: [20, 20] } });
  let oscar: ApiClient;
  let vera: ApiClient;
  let bjorn: ApiClient;
  let receiver: Receiver;
  let down = true;
  beforeAll(async () => {
    [oscar, vera, bjorn] = await Promise.all([api().clientAs('oscar'), api().clientAs('vera'), api().clientAs('bjorn')]);
    receiver = await startReceiver({
      respond: (request) => (down && request.path !== '/bad' ? { status: 503 } : request.path === '/bad' ? { status: 400 } : {}),
    });
  });
  afterAll(async () => {
    await receiver.close();
  });

  const hook = (path: string) => createHook(oscar, receiver.url, path, { devices: [boiler], route: { scopeLevel: 'Connection', connectionTag: path } });
  const idle = () => {
    const delivery = api().delivery;
    if (!delivery) throw new Error('no deliverer');
    return delivery.deliverer.whenIdle();
  };
  const at = (path: string) => receiver.received.filter((r) => r.path === `/${path}`);

  it('sends again, with one call, every delivery that failed or was dropped since the outage began, each under its webhook-id', async () => {
    const id = await hook('outage');
    const bad = await hook('bad');
    const before = await hook('before');
    await api().ingest([telemetryPoint(boiler, { connectionTag: 'before' })]);
    await until(async () => ((await oscar('GET', `/v2/webhooks/${before}/deliveries?outcome=failed`)).body as Attempt[]).length === 1, 'failed');
    const since = new Date().toISOString();
    down = true;
    await api().ingest([1, 2, 3].map((n) => telemetryPoint(boiler, { connectionTag: 'outage', tags: { n: String(n) } })));
    await api().ingest([telemetryPoint(boiler, { connectionTag: 'bad' })]);
    await until(async () => ((await oscar('GET', `/v2/webhooks/${id}/deliveries?outcome=failed`)).body as Attempt[]).length === 3, 'all three failed');
    await idle();
    const idsSeen = new Set(at('outage').map((r) => String(r.headers['webhook-id'])));
    expect(idsSeen.size).toBe(3);
    const sent = at('outage').length;

    down = false;
    const recovered = await oscar('POST', `/v2/webhooks/${id}/deliveries/recover`, { since });
    expect(recovered).toEqual({ status: 202, body: { queued: 3, more: false } });
    // Pending or delivered, what the first recovery queued is not queued twice.
    expect((await oscar('POST', `/v2/webhooks/${id}/deliveries/recover`, { since })).body).toEqual({ queued: 0, more: false });
    await until(() => at('outage').length === sent + 3, 'the three sent again');
    await idle();
    const again = at('outage').slice(sent);
    expect(new Set(again.map((r) => String(r.headers['webhook-id'])))).toEqual(idsSeen);
    expect(again.map((r) => (r.json as { Point: { Tags: { n: string } } }).Point.Tags.n).sort()).toEqual(['1', '2', '3']);
    // A dropped one is recovered too (its own configuration), and one from before the time is not.
    expect((await oscar('POST', `/v2/webhooks/${bad}/deliveries/recover`, { since })).body).toEqual({ queued: 1, more: false });
    expect((await oscar('POST', `/v2/webhooks/${before}/deliveries/recover`, { since })).body).toEqual({ queued: 0, more: false });
    expect((await oscar('POST', `/v2/webhooks/${before}/deliveries/recover`, { since: '2000-01-01T00:00:00Z' })).body).toEqual({ queued: 1, more: false });
    await idle();
  });

  it.each([
    ['without since', {}, 'since', 'is required'],
    ['with a since that is no time', { since: 'yesterday' }, 'since', 'must be an ISO 8601 timestamp, such as 2026-11-22T12:00:00Z'],
    ['with another field', { since: '2026-01-01T00:00:00Z', limit: 5 }, 'limit', 'is not a field of this request'],
  ])('refuses a body %s with 400 naming the field, and queues nothing', async (_, body, field, message) => {
    const id = await hook(`refused-${field}`);
    expect(await oscar('POST', `/v2/webhooks/${id}/deliveries/recover`, body)).toEqual({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED', message: `${field}: ${message}`, field } },
    });
  });

  it('needs the Manage right: a viewer gets 403, another company’s manager 404', async () => {
    const id = await hook('rights');
    const body = { since: '2000-01-01T00:00:00Z' };
    expect((await vera('POST', `/v2/webhooks/${id}/deliveries/recover`, body)).status).toBe(403);
    expect((await bjorn('POST', `/v2/webhooks/${id}/deliveries/recover`, body)).status).toBe(404);
  });
});
