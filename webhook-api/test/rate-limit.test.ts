// A configuration's rate limit end to end, on SQLite and PostgreSQL: the real API with its
// deliverer and a real receiver that notes when each request arrives. The two-deliverer and kill -9
// cases are in pacing-processes.test.ts.
import { startPlatform } from '@platform/dev-platform/testing';
import { startedForTests, until } from '@platform/tool-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHook, startedApiForTests, telemetryPoint, type ApiClient, type Backend } from './harness.ts';
import { mostInAnyWindow, startReceiver, type Receiver } from './receiver.ts';

const platform = startedForTests(() => startPlatform());
const boiler = 1001;

describe.each<Backend>(['SQLite', 'PostgreSQL'])('rate limits on %s', (backend) => {
  const api = startedApiForTests(backend, () => platform().issuer, { deliverer: {} });
  let oscar: ApiClient;
  let receiver: Receiver;
  let tooMany = false;
  beforeAll(async () => {
    oscar = await api().clientAs('oscar');
    receiver = await startReceiver({
      respond: (request) => {
        if (request.path === '/throttled' && tooMany) {
          tooMany = false;
          return { status: 429, headers: { 'retry-after': '1' } };
        }
        return { status: 204 };
      },
    });
  });
  afterAll(async () => {
    await receiver.close();
  });

  const hook = (path: string, fields: Record<string, unknown> = {}) =>
    createHook(oscar, receiver.url, path, { fields, devices: [boiler], route: { scopeLevel: 'Connection', connectionTag: path } });
  const at = (path: string) => receiver.received.filter((r) => r.path === `/${path}`);
  const idle = () => {
    const delivery = api().delivery;
    if (!delivery) throw new Error('no deliverer');
    return delivery.deliverer.whenIdle();
  };

  it('sends at most rateLimitPerSecond requests in any second; the rest wait and are delivered, not failed', { timeout: 30_000 }, async () => {
    const id = await hook('limited', { rateLimitPerSecond: 10 });
    expect(((await oscar('GET', `/v2/webhooks/${id}`)).body as { rateLimitPerSecond: number }).rateLimitPerSecond).toBe(10);
    await api().ingest(Array.from({ length: 30 }, (_, i) => telemetryPoint(boiler, { connectionTag: 'limited', tags: { n: String(i) } })));
    await until(() => at('limited').length >= 30, 'all 30 delivered', 20_000);
    await idle();
    const arrived = at('limited');
    expect(arrived).toHaveLength(30);
    // Slots 100 ms apart: 10 in any second, one more only if timers fired a little late and early.
    expect(mostInAnyWindow(arrived)).toBeLessThanOrEqual(11);
    const spread = (arrived.at(-1)?.at ?? 0) - (arrived[0]?.at ?? 0);
    expect(spread).toBeGreaterThanOrEqual(2_600);
    const failed = (await oscar('GET', `/v2/webhooks/${id}/deliveries?outcome=failed`)).body as unknown[];
    expect(failed).toEqual([]);
  });

  it('counts a Batch request once', { timeout: 30_000 }, async () => {
    const id = await hook('batched', { deliveryMode: 'Batch', rateLimitPerSecond: 2 });
    await api().ingest(Array.from({ length: 250 }, (_, i) => telemetryPoint(boiler, { connectionTag: 'batched', measurement: `m${i % 5}` })));
    await until(() => at('batched').reduce((n, r) => n + (r.json as { Points: unknown[] }).Points.length, 0) >= 250, 'all 250 points delivered', 20_000);
    expect(mostInAnyWindow(at('batched'))).toBeLessThanOrEqual(3);
    expect(id).toBeTruthy();
  });

  it('slows the next attempts of every delivery after a 429, for its Retry-After', { timeout: 30_000 }, async () => {
    const id = await hook('throttled');
    tooMany = true;
    await api().ingest([telemetryPoint(boiler, { connectionTag: 'throttled' })]);
    // The 429 is recorded (and the endpoint paused) before the next points come.
    await until(
      async () => ((await oscar('GET', `/v2/webhooks/${id}/deliveries`)).body as { responseStatus: number }[])[0]?.responseStatus === 429,
      '429 recorded',
    );
    const throttledAt = at('throttled')[0]?.at ?? 0;
    await api().ingest([1, 2, 3].map(() => telemetryPoint(boiler, { connectionTag: 'throttled' })));
    await until(() => at('throttled').length >= 5, 'the three and the retry delivered', 20_000);
    for (const request of at('throttled').slice(1)) expect(request.at - throttledAt).toBeGreaterThanOrEqual(900);
  });

  it.each([
    ['0', 0],
    ['10001', 10_001],
    ['1.5', 1.5],
    ['a string', '5'],
  ])('refuses a rateLimitPerSecond of %s with 400 naming the field', async (_, rateLimitPerSecond) => {
    const answer = await oscar('POST', '/v2/webhooks?companyId=1', { name: 'bad', url: `${receiver.url}/bad`, deliveryMode: 'Realtime', rateLimitPerSecond });
    expect(answer).toEqual({
      status: 400,
      body: {
        error: { code: 'VALIDATION_FAILED', message: 'rateLimitPerSecond: must be a whole number from 1 to 10000, or null', field: 'rateLimitPerSecond' },
      },
    });
  });

  it('keeps the limit on a PUT without it, and removes it with null', async () => {
    const id = await hook('put', { rateLimitPerSecond: 7 });
    const base = { name: 'put', url: `${receiver.url}/put`, deliveryMode: 'Realtime' };
    expect(((await oscar('PUT', `/v2/webhooks/${id}`, base)).body as { rateLimitPerSecond: number }).rateLimitPerSecond).toBe(7);
    expect(((await oscar('PUT', `/v2/webhooks/${id}`, { ...base, rateLimitPerSecond: 100 })).body as { rateLimitPerSecond: number }).rateLimitPerSecond).toBe(
      100,
    );
    expect(
      ((await oscar('PUT', `/v2/webhooks/${id}`, { ...base, rateLimitPerSecond: null })).body as { rateLimitPerSecond: null }).rateLimitPerSecond,
    ).toBeNull();
  });
});
