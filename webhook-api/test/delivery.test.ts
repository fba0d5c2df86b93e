// Ingest to delivery end to end: the real API with its deliverer, the dev platform, real receivers,
// on SQLite and PostgreSQL. What SPEC's Events, States and transitions and the rules say
// each endpoint receives, and when it receives nothing.
import { request as httpRequest } from 'node:http';
import { startPlatform } from '@platform/dev-platform/testing';
import { startedForTests, until } from '@platform/tool-sdk/testing';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { heldAnswers, startReceiver, type Receiver } from './receiver.ts';
import {
  createHook,
  newStoreLocation,
  startWebhookApi,
  telemetryPoint,
  testDeliverySettings,
  testIngestToken,
  type ApiClient,
  type Backend,
  type RunningApi,
} from './harness.ts';

const platform = startedForTests(() => startPlatform());
/** Devices of company 1 (gateway gw-acme-01) in the dev platform's seed. */
const boiler = 1001;
const roof = 1002;

describe.each<Backend>(['SQLite', 'PostgreSQL'])('delivery on %s', (backend) => {
  let api: RunningApi;
  let oscar: ApiClient;
  let receiver: Receiver;

  beforeAll(async () => {
    api = await startWebhookApi({ location: await newStoreLocation(backend, inject('postgresUrl')), platformUrl: platform().issuer, deliverer: {} });
    oscar = await api.clientAs('oscar');
  });
  afterAll(async () => {
    await api.close();
  });
  /** The configurations this test made: deleted after it, so no test routes or retries into another's. */
  const made: string[] = [];
  afterEach(async () => {
    for (const id of made.splice(0)) await oscar('DELETE', `/v2/webhooks/${id}`);
    await receiver.close();
  });

  async function hook(path: string, fields: Record<string, unknown> = {}): Promise<string> {
    const id = await createHook(oscar, receiver.url, path, { fields });
    made.push(id);
    return id;
  }
  /** Resolves once the deliverer found nothing more to send and wrote every settlement: what has not arrived will not. */
  const settled = () => {
    if (!api.delivery) throw new Error('this API runs no deliverer');
    return api.delivery.deliverer.whenIdle();
  };
  async function link(id: string, deviceId = boiler, ...scopes: Record<string, unknown>[]): Promise<string[]> {
    expect((await oscar('POST', `/v2/webhooks/${id}/devices/${deviceId}`)).status).toBe(201);
    const ids: string[] = [];
    for (const scope of scopes) {
      const created = await oscar('POST', `/v2/webhooks/${id}/devices/${deviceId}/routes`, { enabled: true, ...scope });
      expect(created.status).toBe(201);
      ids.push((created.body as { id: string }).id);
    }
    return ids;
  }
  const at = (path: string) => receiver.received.filter((r) => r.path === `/${path}`);
  async function ingest(...points: Record<string, unknown>[]) {
    const answer = await api.ingest(points);
    expect(answer.status).toBe(202);
    return answer.body as { accepted: number; queued: number };
  }

  it('delivers a Realtime point: the envelope per SPEC and every header, with the configured method', async () => {
    receiver = await startReceiver();
    const id = await hook('realtime', { method: 'PUT', customHeaders: JSON.stringify({ 'X-Tenant': 'acme' }) });
    await link(id, boiler, { scopeLevel: 'Device' });
    const sentAfter = Date.now();
    expect(await ingest(telemetryPoint(boiler, { fields: { value: 21.5, rssi: -70 }, tags: { site: 'north' } }))).toEqual({ accepted: 1, queued: 1 });
    const [request] = await receiver.waitFor(1);
    expect(request?.method).toBe('PUT');
    expect(request?.json).toEqual({
      Timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown,
      Metadata: { Company: '1', GatewayId: 'gw-1', Measurement: 'temperature' },
      Point: {
        Measurement: 'temperature',
        Fields: { value: 21.5, rssi: -70 },
        Tags: { site: 'north' },
        UtcTimestamp: '2026-11-22T12:00:00.000Z',
        DeviceId: boiler,
        ConnectionTag: 'modbus',
      },
    });
    // Keys in SPEC's order.
    expect(request?.body.startsWith('{"Timestamp":')).toBe(true);
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': expect.stringMatching(/^Platform\.Cloud\.Stream\.WebhookHttpClient\/\d+\.\d+\.\d+$/) as unknown,
      'x-webhook-retry-count': '0',
      'x-tenant': 'acme',
    });
    const stamp = String(request?.headers['x-webhook-timestamp']);
    expect(stamp).toBe((request?.json as { Timestamp: string }).Timestamp);
    expect(Date.parse(stamp)).toBeGreaterThanOrEqual(sentAfter - 5);
    expect(request?.headers.authorization).toBeUndefined();
  });

  it.each([
    ['Bearer', { token: 'bearer-secret-0001' }, { authorization: 'Bearer bearer-secret-0001' }, 'bearer-secret-0001'],
    ['ApiKey', { apiKeyValue: 'api-key-secret-0002' }, { 'x-api-key': 'api-key-secret-0002' }, 'api-key-secret-0002'],
    [
      'Basic',
      { username: 'ingest', password: 'pässwörd-0003' },
      { authorization: `Basic ${Buffer.from('ingest:pässwörd-0003').toString('base64')}` },
      'pässwörd-0003',
    ],
    [
      'Custom',
      { headers: { 'X-Signature-Key': 'custom-secret-0004', 'X-Other': 'o' } },
      { 'x-signature-key': 'custom-secret-0004', 'x-other': 'o' },
      'custom-secret-0004',
    ],
  ])('sends the %s authentication header, decrypted at send time, and never logs it', async (authType, payload, expected, secret) => {
    receiver = await startReceiver();
    const id = await hook(`auth-${authType}`, { authType, authPayload: JSON.stringify(payload) });
    await link(id, boiler, { scopeLevel: 'Device' });
    await ingest(telemetryPoint(boiler));
    const [request] = await receiver.waitFor(1);
    expect(request?.headers).toMatchObject(expected);
    const attemptLog = JSON.stringify((await oscar('GET', `/v2/webhooks/${id}/deliveries`)).body);
    for (const leaked of [secret, ...Object.values(expected)]) {
      if (leaked === 'o') continue;
      expect(api.logs.join('\n')).not.toContain(leaked);
      expect(attemptLog).not.toContain(leaked);
    }
  });

  it('Batch: the points of one configuration, gateway and measurement in one request, after the linger', async () => {
    receiver = await startReceiver();
    const id = await hook('batch', { deliveryMode: 'Batch', includeMetadataHeaders: false, includeRetryHeader: false });
    await link(id, boiler, { scopeLevel: 'Device' });
    await link(id, roof, { scopeLevel: 'Device' });
    await ingest(
      telemetryPoint(boiler, { fields: { value: 1 } }),
      telemetryPoint(roof, { fields: { value: 2 } }),
      telemetryPoint(boiler, { measurement: 'pressure', fields: { value: 3 } }),
      telemetryPoint(boiler, { gatewayId: 'gw-2', fields: { value: 4 } }),
    );
    await receiver.waitFor(3);
    await settled();
    expect(receiver.received).toHaveLength(3);
    const envelopes = receiver.received.map((r) => r.json as { Metadata: { GatewayId: string; Measurement: string }; Points: { Fields: { value: number } }[] });
    const byKey = Object.fromEntries(envelopes.map((e) => [`${e.Metadata.GatewayId}/${e.Metadata.Measurement}`, e.Points.map((p) => p.Fields.value)]));
    expect(byKey).toEqual({ 'gw-1/temperature': [1, 2], 'gw-1/pressure': [3], 'gw-2/temperature': [4] });
    for (const request of receiver.received) {
      expect(request.json).not.toHaveProperty('Point');
      // includeMetadataHeaders and includeRetryHeader false: none of the three.
      expect(request.headers['user-agent']).toBeUndefined();
      expect(request.headers['x-webhook-timestamp']).toBeUndefined();
      expect(request.headers['x-webhook-retry-count']).toBeUndefined();
    }
  });

  it('a 4xx is dropped after one request and recorded as such', async () => {
    receiver = await startReceiver({ respond: () => ({ status: 410, body: 'gone for good' }) });
    const id = await hook('gone');
    await link(id, boiler, { scopeLevel: 'Device' });
    await ingest(telemetryPoint(boiler));
    await receiver.waitFor(1);
    await settled();
    expect(receiver.received).toHaveLength(1);
    const log = (await oscar('GET', `/v2/webhooks/${id}/deliveries`)).body as { outcome: string; responseStatus: number }[];
    expect(log).toMatchObject([{ outcome: 'dropped', responseStatus: 410 }]);
  });

  it('records an answer whatever bytes it holds: a NUL in a response body is stored as U+FFFD and holds up nothing', async () => {
    receiver = await startReceiver({ respond: (request) => ({ status: 200, body: request.path === '/nul' ? 'ok\u0000bye\u0007' : 'fine' }) });
    const nul = await hook('nul');
    const fine = await hook('fine');
    await link(nul, boiler, { scopeLevel: 'Device' });
    await link(fine, boiler, { scopeLevel: 'Device' });
    await ingest(telemetryPoint(boiler), telemetryPoint(boiler));
    await until(async () => ((await oscar('GET', `/v2/webhooks/${nul}/deliveries?outcome=delivered`)).body as unknown[]).length === 2, 'nul recorded');
    await until(async () => ((await oscar('GET', `/v2/webhooks/${fine}/deliveries?outcome=delivered`)).body as unknown[]).length === 2, 'fine recorded');
    const [attempt] = (await oscar('GET', `/v2/webhooks/${nul}/deliveries`)).body as { responseBody: string }[];
    expect(attempt?.responseBody).toBe('ok\ufffdbye\ufffd');
    await settled();
    expect(receiver.received).toHaveLength(4);
  });

  it.each([
    ['429 with Retry-After', { status: 429, headers: { 'retry-after': '1' } }],
    ['500', { status: 500 }],
    ['a timeout', { hang: true as const }],
    ['a reset', { reset: true as const }],
  ])('%s is retried with a growing X-Webhook-Retry-Count until it is delivered', async (what, failure) => {
    receiver = await startReceiver({ respond: (_request, index) => (index < 2 ? failure : { status: 204 }) });
    const id = await hook(`retry-${what.replace(/\W/g, '')}`);
    await link(id, boiler, { scopeLevel: 'Device' });
    await ingest(telemetryPoint(boiler));
    const requests = await receiver.waitFor(3, 15_000);
    expect(requests.map((r) => r.headers['x-webhook-retry-count'])).toEqual(['0', '1', '2']);
    if (what.startsWith('429')) {
      // Retry-After: 1 is honoured over the 50 ms step, clamped to the schedule's longest step (400 ms here).
      expect((requests[1]?.at ?? 0) - (requests[0]?.at ?? 0)).toBeGreaterThanOrEqual(380);
    }
    await until(async () => ((await oscar('GET', `/v2/webhooks/${id}/deliveries?outcome=delivered`)).body as unknown[]).length === 1, 'delivered');
    const log = (await oscar('GET', `/v2/webhooks/${id}/deliveries`)).body as { outcome: string; attempt: number }[];
    expect(log.map((a) => [a.attempt, a.outcome])).toEqual([
      [2, 'delivered'],
      [1, 'retrying'],
      [0, 'retrying'],
    ]);
  });

  it('a PUT of the url, method, headers and credentials applies to the attempts made after it', async () => {
    receiver = await startReceiver({ respond: (request) => (request.path === '/before' ? { status: 503 } : { status: 200 }) });
    const id = await hook('before', { authType: 'Bearer', authPayload: JSON.stringify({ token: 'old-token-0001' }) });
    await link(id, boiler, { scopeLevel: 'Device' });
    await ingest(telemetryPoint(boiler));
    await receiver.waitFor(1);
    const updated = await oscar('PUT', `/v2/webhooks/${id}`, {
      name: 'after',
      url: `${receiver.url}/after`,
      deliveryMode: 'Realtime',
      method: 'PATCH',
      customHeaders: JSON.stringify({ 'X-Version': '2' }),
      authType: 'ApiKey',
      authPayload: JSON.stringify({ apiKeyValue: 'new-key-0002' }),
    });
    expect(updated.status).toBe(200);
    await until(() => at('after').length === 1, 'the retry went to the new url');
    const [retry] = at('after');
    expect(retry?.method).toBe('PATCH');
    expect(retry?.headers).toMatchObject({ 'x-version': '2', 'x-api-key': 'new-key-0002', 'x-webhook-retry-count': String(at('before').length) });
    expect(retry?.headers.authorization).toBeUndefined();
  });

  it('gives up after the schedule: the delivery is recorded as failed', async () => {
    receiver = await startReceiver({ respond: () => ({ status: 503 }) });
    const id = await hook('always-down');
    await link(id, boiler, { scopeLevel: 'Device' });
    await ingest(telemetryPoint(boiler));
    // The first attempt and the four retries of the test schedule.
    await receiver.waitFor(5, 15_000);
    await until(async () => ((await oscar('GET', `/v2/webhooks/${id}/deliveries?outcome=failed`)).body as unknown[]).length === 1, 'failed');
    await settled();
    expect(receiver.received).toHaveLength(5);
  });

  it('routes per the scopes as they are at each point: added, disabled, enabled, removed; a link alone forwards nothing; a point matched twice goes once', async () => {
    receiver = await startReceiver();
    const id = await hook('routing');
    await link(id, boiler);
    const sent = async (tag: string) => {
      await ingest(telemetryPoint(boiler, { tags: { step: tag } }));
    };
    const steps = () => receiver.received.map((r) => (r.json as { Point: { Tags: { step: string } } }).Point.Tags.step);

    await sent('link alone');
    const [device, connection] = [
      ...(await Promise.all([
        oscar('POST', `/v2/webhooks/${id}/devices/${boiler}/routes`, { scopeLevel: 'Device', enabled: true }),
        oscar('POST', `/v2/webhooks/${id}/devices/${boiler}/routes`, { scopeLevel: 'Connection', connectionTag: 'modbus', enabled: true }),
      ])),
    ].map((r) => (r.body as { id: string }).id);
    await sent('matched twice');
    await receiver.waitFor(1);
    for (const routeId of [device, connection]) {
      await oscar('PUT', `/v2/webhooks/${id}/devices/${boiler}/routes/${String(routeId)}`, {
        scopeLevel: routeId === device ? 'Device' : 'Connection',
        ...(routeId === connection && { connectionTag: 'modbus' }),
        enabled: false,
      });
    }
    await sent('all disabled');
    await oscar('PUT', `/v2/webhooks/${id}/devices/${boiler}/routes/${String(connection)}`, {
      scopeLevel: 'Connection',
      connectionTag: 'modbus',
      enabled: true,
    });
    await sent('enabled again');
    await receiver.waitFor(2);
    await oscar('DELETE', `/v2/webhooks/${id}/devices/${boiler}/routes/${String(connection)}`);
    await sent('removed');
    await settled();
    expect(steps()).toEqual(['matched twice', 'enabled again']);
  });

  it('an unlink and a deletion stop delivery at the next point and cancel pending retries', async () => {
    let failing = true;
    receiver = await startReceiver({ respond: () => (failing ? { status: 500 } : { status: 200 }) });
    const unlinked = await hook('unlinked');
    await link(unlinked, boiler, { scopeLevel: 'Device' });
    const deleted = await hook('deleted');
    await link(deleted, boiler, { scopeLevel: 'Device' });
    await ingest(telemetryPoint(boiler));
    await until(() => at('unlinked').length >= 2 && at('deleted').length >= 2, 'both retried');

    expect((await oscar('DELETE', `/v2/webhooks/${unlinked}/devices/${boiler}`)).status).toBe(204);
    expect((await oscar('DELETE', `/v2/webhooks/${deleted}`)).status).toBe(200);
    const before = receiver.received.length;
    failing = false;
    expect(await ingest(telemetryPoint(boiler))).toEqual({ accepted: 1, queued: 0 });
    await settled();
    // A request already in flight may land; nothing after it, and nothing is left to retry.
    expect(receiver.received.length - before).toBeLessThanOrEqual(2);
    expect((await api.store.deliveries.stats()).queued).toBe(0);
  });

  it('a slow endpoint holds only its own slots: another endpoint is delivered at once', async () => {
    receiver = await startReceiver({ respond: (request) => (request.path === '/tarpit' ? { hang: true } : { status: 200 }) });
    const tarpit = await hook('tarpit');
    await link(tarpit, boiler, { scopeLevel: 'Device' });
    const healthy = await hook('healthy');
    await link(healthy, roof, { scopeLevel: 'Device' });
    // More than the endpoint's 8 slots of the test settings, all hanging until the 2 s request timeout.
    await ingest(...Array.from({ length: 20 }, () => telemetryPoint(boiler)));
    await until(() => at('tarpit').length === testDeliverySettings.maxInFlightPerEndpoint, 'the tarpit holds its slots');
    await ingest(telemetryPoint(roof));
    await until(async () => ((await oscar('GET', `/v2/webhooks/${healthy}/deliveries?outcome=delivered`)).body as unknown[]).length === 1, 'healthy delivered');
    // Delivered while every one of the tarpit's requests still hangs: none has been settled, and no ninth was sent.
    expect((await oscar('GET', `/v2/webhooks/${tarpit}/deliveries`)).body).toEqual([]);
    expect(at('tarpit')).toHaveLength(testDeliverySettings.maxInFlightPerEndpoint);
    // What the tarpit still has queued goes with it.
    expect((await oscar('DELETE', `/v2/webhooks/${tarpit}`)).status).toBe(200);
  });

  it('a configuration deleted while its points wait in its endpoint log gets none of them afterwards', async () => {
    // The endpoint's first requests wait until the test lets them answer.
    const held = heldAnswers();
    receiver = await startReceiver({ respond: held.respond });
    const id = await hook('claimed-ahead');
    await link(id, boiler, { scopeLevel: 'Device' });
    await ingest(...Array.from({ length: 20 }, () => telemetryPoint(boiler)));
    const slots = testDeliverySettings.maxInFlightPerEndpoint;
    await until(() => at('claimed-ahead').length === slots, 'the endpoint holds its slots');
    // The endpoint's log is read as its slots free (on PostgreSQL a round of them ahead, held): those read are in flight, the others wait.
    const read = slots * (api.store.deliveries.logReadAhead?.rounds ?? 1);
    const page = await api.store.deliveries.pageDeliveries(id, {}, { limit: 100 }, Date.now());
    expect(page.items.filter((delivery) => delivery.inFlight)).toHaveLength(read);
    expect(page.items.filter((delivery) => delivery.state === 'waiting' && !delivery.inFlight)).toHaveLength(20 - read);

    expect((await oscar('DELETE', `/v2/webhooks/${id}`)).status).toBe(200);
    held.release();
    await settled();
    // The requests sent before the deletion were answered; nothing it held was sent after.
    expect(at('claimed-ahead')).toHaveLength(slots);
    expect((await api.store.deliveries.stats()).queued).toBe(0);
  });

  it('a configuration deleted while its batches are claimed ahead of sending gets none of them afterwards', async () => {
    // Twenty batches (a measurement each) due together when their linger ends, claimed more than the
    // slots at once (held under the deliverer's lease); the requests wait until the test lets them answer.
    const held = heldAnswers();
    receiver = await startReceiver({ respond: held.respond });
    const id = await hook('batched-ahead', { deliveryMode: 'Batch' });
    await link(id, boiler, { scopeLevel: 'Device' });
    await ingest(...Array.from({ length: 20 }, (_, i) => telemetryPoint(boiler, { measurement: `m${i}` })));
    const slots = testDeliverySettings.maxInFlightPerEndpoint;
    await until(() => at('batched-ahead').length === slots, 'the endpoint holds its slots');
    const page = await api.store.deliveries.pageDeliveries(id, {}, { limit: 100 }, Date.now());
    expect(page.items.filter((delivery) => delivery.inFlight).length).toBeGreaterThan(slots);

    expect((await oscar('DELETE', `/v2/webhooks/${id}`)).status).toBe(200);
    held.release();
    await settled();
    // The batches sent before the deletion were answered; nothing held was sent after.
    expect(at('batched-ahead')).toHaveLength(slots);
    expect((await api.store.deliveries.stats()).queued).toBe(0);
  });

  it('a configuration updated while its points wait in its endpoint log sends them as it is now', async () => {
    const held = heldAnswers();
    receiver = await startReceiver({ respond: (request) => (request.path === '/moved' ? { status: 200 } : held.respond()) });
    const id = await hook('before-move');
    await link(id, boiler, { scopeLevel: 'Device' });
    await ingest(...Array.from({ length: 20 }, () => telemetryPoint(boiler)));
    const slots = testDeliverySettings.maxInFlightPerEndpoint;
    await until(() => at('before-move').length === slots, 'the endpoint holds its slots');
    const read = slots * (api.store.deliveries.logReadAhead?.rounds ?? 1);
    const page = await api.store.deliveries.pageDeliveries(id, {}, { limit: 100 }, Date.now());
    expect(page.items.filter((delivery) => delivery.state === 'waiting' && !delivery.inFlight)).toHaveLength(20 - read);

    const moved = await oscar('PUT', `/v2/webhooks/${id}`, { name: 'moved', url: `${receiver.url}/moved`, deliveryMode: 'Realtime' });
    expect(moved.status).toBe(200);
    held.release();
    await settled();
    // What was sent before the PUT went to the old URL; everything held went to the new one.
    expect(at('before-move')).toHaveLength(slots);
    expect(at('moved')).toHaveLength(20 - slots);
  });

  it('refuses private targets when they are not allowed: a private address and a literal IPv6 loopback dropped; a name that resolves to loopback told apart from no name that does not resolve', async () => {
    const strict = await startWebhookApi({
      location: await newStoreLocation(backend, inject('postgresUrl')),
      platformUrl: platform().issuer,
      deliverer: { allowPrivateTargets: false, retrySchedule: [60_000], maxAgeMs: 3_600_000 },
    });
    try {
      receiver = await startReceiver();
      const v6 = await startReceiver({ host: '::1' });
      const client = await strict.clientAs('oscar');
      const made = async (url: string) => {
        const created = await client('POST', '/v2/webhooks?companyId=1', { name: 'private', url, deliveryMode: 'Realtime' });
        const id = (created.body as { id: string }).id;
        expect((await client('POST', `/v2/webhooks/${id}/devices/${boiler}`)).status).toBe(201);
        expect((await client('POST', `/v2/webhooks/${id}/devices/${boiler}/routes`, { scopeLevel: 'Device', enabled: true })).status).toBe(201);
        return id;
      };
      const literals = [await made(`${receiver.url}/private`), await made(`${v6.url}/v6`)];
      const named = await made(`http://localhost:${receiver.port}/named`);
      const missing = await made(`http://no-such-host.invalid:${receiver.port}/missing`);
      await strict.ingest([telemetryPoint(boiler)]);
      const firstAttempt = async (id: string) => ((await client('GET', `/v2/webhooks/${id}/deliveries`)).body as { outcome: string; error: string }[])[0];
      await until(async () => (await Promise.all([...literals, named, missing].map(firstAttempt))).every((a) => a !== undefined), 'every target tried');
      for (const id of literals) {
        const attempt = await firstAttempt(id);
        expect(attempt?.outcome).toBe('dropped');
        expect(attempt?.error).toMatch(
          /^the target is (127\.0\.0\.1|::1), a loopback address; deliveries to private and special-purpose addresses are refused$/,
        );
      }
      // A name pointing inside and a name pointing nowhere read the same, and are retried alike.
      const [inside, nowhere] = [await firstAttempt(named), await firstAttempt(missing)];
      expect(inside).toMatchObject({ outcome: 'retrying', error: 'ENOTFOUND: the target host localhost did not resolve to a public address' });
      expect(nowhere).toMatchObject({ outcome: 'retrying', error: 'ENOTFOUND: the target host no-such-host.invalid did not resolve to a public address' });
      expect(receiver.received).toEqual([]);
      expect(v6.received).toEqual([]);
      await v6.close();
    } finally {
      await strict.close();
    }
  });

  it('wakes its deliverer on ingest, without waiting for a poll', async () => {
    const slowPoll = await startWebhookApi({
      location: await newStoreLocation(backend, inject('postgresUrl')),
      platformUrl: platform().issuer,
      deliverer: { pollMs: 60_000 },
    });
    try {
      receiver = await startReceiver();
      const client = await slowPoll.clientAs('oscar');
      const created = await client('POST', '/v2/webhooks?companyId=1', { name: 'wake', url: `${receiver.url}/wake`, deliveryMode: 'Realtime' });
      const id = (created.body as { id: string }).id;
      await client('POST', `/v2/webhooks/${id}/devices/${boiler}`);
      await client('POST', `/v2/webhooks/${id}/devices/${boiler}/routes`, { scopeLevel: 'Device', enabled: true });
      // The deliverer has looked and found nothing; its next poll is a minute away, so only the ingest can wake it in time.
      await slowPoll.delivery?.deliverer.whenIdle();
      expect((await slowPoll.ingest([telemetryPoint(boiler)])).status).toBe(202);
      await receiver.waitFor(1, 5_000);
    } finally {
      await slowPoll.close();
    }
  });

  describe('ingest', () => {
    it('refuses the whole request for one bad point, naming its index and field, and queues nothing', async () => {
      receiver = await startReceiver();
      const id = await hook('ingest-refusal');
      await link(id, boiler, { scopeLevel: 'Device' });
      const cases: [Record<string, unknown>, string][] = [
        [telemetryPoint(boiler, { fields: { value: 'hot' } }), 'points.1.fields.value'],
        [telemetryPoint(boiler, { utcTimestamp: '2026-11-22T12:00:00+02:00' }), 'points.1.utcTimestamp'],
        [telemetryPoint(boiler, { measurement: 'm'.repeat(256) }), 'points.1.measurement'],
        [telemetryPoint(boiler, { connectionTag: 'x'.repeat(256) }), 'points.1.connectionTag'],
        [telemetryPoint(boiler, { tags: { site: 42 } }), 'points.1.tags.site'],
        [telemetryPoint(boiler, { gatewayId: 'gw\u0000' }), 'points.1.gatewayId'],
        [telemetryPoint(-1), 'points.1.deviceId'],
        [{ ...telemetryPoint(boiler), extra: 1 }, 'points.1.extra'],
        [[telemetryPoint(boiler)] as unknown as Record<string, unknown>, 'points.1'],
        [{ ...telemetryPoint(boiler), tags: JSON.parse('{"__proto__":"x"}') as unknown }, 'points.1.tags'],
        [telemetryPoint(boiler, { fields: { 'odd\u202ename': 'x' } }), 'points.1.fields.[key]'],
      ];
      const before = await api.store.deliveries.stats();
      // Said in the API's words, never zod's own.
      expect(await api.ingest([telemetryPoint(boiler), [], telemetryPoint(boiler)])).toMatchObject({
        status: 400,
        body: {
          error: {
            field: 'points.1',
            message: 'points.1: must be a point: an object with deviceId, gatewayId, connectionTag, measurement, fields and utcTimestamp',
          },
        },
      });
      for (const [bad, field] of cases) {
        const answer = await api.ingest([telemetryPoint(boiler), bad, telemetryPoint(boiler)]);
        expect(answer.status, field).toBe(400);
        expect(answer.body).toMatchObject({ error: { code: 'VALIDATION_FAILED', field } });
      }
      await settled();
      expect(receiver.received).toEqual([]);
      expect(await api.store.deliveries.stats()).toEqual(before);
      expect((await oscar('GET', `/v2/webhooks/${id}/deliveries`)).body).toEqual([]);
    });

    it('asks for the ingest token, compared whole', async () => {
      const url = api.url;
      const post = (authorization?: string) =>
        fetch(`${url}/internal/telemetry`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(authorization !== undefined && { authorization }) },
          body: JSON.stringify({ points: [telemetryPoint(boiler)] }),
        });
      for (const authorization of [undefined, 'Bearer wrong', `Bearer ${testIngestToken}x`, `Bearer ${testIngestToken.slice(0, -1)}`, testIngestToken]) {
        const response = await post(authorization);
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer');
      }
      expect((await post(`Bearer ${testIngestToken}`)).status).toBe(202);
      // Two headers, each the token: refused, and said so.
      // Raw headers, as the edge's tests send them: fetch joins two headers of one name into one.
      const { host } = new URL(url);
      const headers = [
        'host',
        host,
        'content-type',
        'application/json',
        'authorization',
        `Bearer ${testIngestToken}`,
        'authorization',
        `Bearer ${testIngestToken}`,
      ];
      const raw = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        httpRequest(`${url}/internal/telemetry`, { method: 'POST', headers }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => {
            resolve({ status: response.statusCode ?? 0, body });
          });
        })
          .on('error', reject)
          .end(JSON.stringify({ points: [telemetryPoint(boiler)] }));
      });
      expect(raw.status).toBe(401);
      expect(JSON.parse(raw.body)).toMatchObject({ error: { code: 'UNAUTHENTICATED', message: 'Authorization: send one Authorization header, not several' } });
    });

    it('refuses more points than the limit, a body over the size limit, and a body that is not JSON', async () => {
      const tooMany = await api.ingest(Array.from({ length: 1001 }, () => telemetryPoint(boiler)));
      expect(tooMany).toMatchObject({ status: 400, body: { error: { field: 'points' } } });
      const huge = await api.ingest([telemetryPoint(boiler, { tags: { blob: 'x'.repeat(1_100_000) } })]);
      expect(huge.status).toBe(413);
      const text = await fetch(`${api.url}/internal/telemetry`, {
        method: 'POST',
        headers: { authorization: `Bearer ${testIngestToken}`, 'content-type': 'text/plain' },
        body: 'points',
      });
      expect(text.status).toBe(415);
      const nested = await fetch(`${api.url}/internal/telemetry`, {
        method: 'POST',
        headers: { authorization: `Bearer ${testIngestToken}`, 'content-type': 'application/json' },
        body: `{"points":[${'['.repeat(5000)}${']'.repeat(5000)}]}`,
      });
      expect(nested.status).toBe(400);
    });
  });
});
