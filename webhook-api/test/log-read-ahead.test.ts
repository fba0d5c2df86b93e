// PostgreSQL's deliverer reads an endpoint's log a round of its slots ahead and sends what it holds
// as the slots free, unchecked within a window after the read (src/store/log-read-ahead.ts). These
// are the rules that make that safe, each with a change made inside the window (widened here to
// two seconds, so the test's own steps fit in it): the change answers only once the window of what
// was read before it has passed, so nothing held goes unchecked after the answer; and an attempt
// that failed sends its endpoint's held points through a recheck, so a 429's pause holds for them.
import { startPlatform } from '@platform/dev-platform/testing';
import { startedForTests, until } from '@platform/tool-sdk/testing';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { heldAnswers, startReceiver, type ReceivedRequest, type Receiver } from './receiver.ts';
import { createHook, newStoreLocation, startWebhookApi, telemetryPoint, testDeliverySettings, type ApiClient, type RunningApi } from './harness.ts';

const platform = startedForTests(() => startPlatform());
/** Devices of company 1 in the dev platform's seed. */
const boiler = 1001;
const roof = 1002;
const windowMs = 2_000;
const slots = testDeliverySettings.maxInFlightPerEndpoint;

describe('endpoint logs read ahead on PostgreSQL', () => {
  let api: RunningApi;
  let oscar: ApiClient;
  let receiver: Receiver;

  beforeAll(async () => {
    api = await startWebhookApi({
      location: await newStoreLocation('PostgreSQL', inject('postgresUrl')),
      platformUrl: platform().issuer,
      // Requests wait longer than the window (the test holds their answers across a change).
      deliverer: { requestTimeoutMs: 4 * windowMs },
      logReadAhead: { rounds: 2, windowMs },
    });
    oscar = await api.clientAs('oscar');
  });
  afterAll(async () => {
    await api.close();
  });
  const made: string[] = [];
  afterEach(async () => {
    for (const id of made.splice(0)) await oscar('DELETE', `/v2/webhooks/${id}`);
    await receiver.close();
  });

  async function hook(path: string): Promise<string> {
    const id = await createHook(oscar, receiver.url, path);
    made.push(id);
    return id;
  }
  async function link(id: string, deviceId = boiler): Promise<void> {
    expect((await oscar('POST', `/v2/webhooks/${id}/devices/${deviceId}`)).status).toBe(201);
    expect((await oscar('POST', `/v2/webhooks/${id}/devices/${deviceId}/routes`, { enabled: true, scopeLevel: 'Device' })).status).toBe(201);
  }
  async function ingest(...points: Record<string, unknown>[]): Promise<void> {
    expect((await api.ingest(points)).status).toBe(202);
  }
  const at = (path: string) => receiver.received.filter((r) => r.path === `/${path}`);
  const settled = () => {
    if (!api.delivery) throw new Error('this API runs no deliverer');
    return api.delivery.deliverer.whenIdle();
  };
  /** Twenty points of `deviceId` for `path`'s endpoint, whose slots then all wait: a round in flight, a round read ahead and held. */
  async function slotsFullAndHeld(path: string, deviceId = boiler): Promise<void> {
    await ingest(...Array.from({ length: 20 }, () => telemetryPoint(deviceId)));
    await until(() => at(path).length === slots, 'the endpoint holds its slots');
  }
  /** `change`, timed: how long it took to answer. */
  async function timed<T>(change: () => Promise<T>): Promise<{ answer: T; ms: number }> {
    const started = performance.now();
    const answer = await change();
    return { answer, ms: performance.now() - started };
  }

  it('a deletion answers once the window has passed, and nothing read before it is sent after', async () => {
    const held = heldAnswers();
    receiver = await startReceiver({ respond: held.respond });
    const id = await hook('deleted');
    await link(id);
    await slotsFullAndHeld('deleted');
    const page = await api.store.deliveries.pageDeliveries(id, {}, { limit: 100 }, Date.now());
    expect(page.items.filter((delivery) => delivery.inFlight)).toHaveLength(2 * slots);

    const { answer, ms } = await timed(() => oscar('DELETE', `/v2/webhooks/${id}`));
    expect(answer.status).toBe(200);
    expect(ms).toBeGreaterThanOrEqual(windowMs);
    held.release();
    await settled();
    // The requests sent before the deletion were answered; none of the points held went after it.
    expect(at('deleted')).toHaveLength(slots);
  });

  it('an update answers once the window has passed, and the points held go to the endpoint as it is then', async () => {
    const held = heldAnswers();
    receiver = await startReceiver({ respond: (request: ReceivedRequest) => (request.path === '/moved' ? { status: 200 } : held.respond()) });
    const id = await hook('before-move');
    // Nobody holds the endpoint's log: a change answers at once.
    const idle = await timed(() => oscar('PUT', `/v2/webhooks/${id}`, { name: 'idle', url: `${receiver.url}/before-move`, deliveryMode: 'Realtime' }));
    expect(idle.answer.status).toBe(200);
    expect(idle.ms).toBeLessThan(windowMs);
    await link(id);
    await slotsFullAndHeld('before-move');

    const moved = await timed(() => oscar('PUT', `/v2/webhooks/${id}`, { name: 'moved', url: `${receiver.url}/moved`, deliveryMode: 'Realtime' }));
    expect(moved.answer.status).toBe(200);
    expect(moved.ms).toBeGreaterThanOrEqual(windowMs);
    held.release();
    await settled();
    expect(at('before-move')).toHaveLength(slots);
    expect(at('moved')).toHaveLength(20 - slots);
  });

  it('an unlink answers once the window has passed, and none of the device’s points held goes after it', async () => {
    const held = heldAnswers();
    receiver = await startReceiver({ respond: held.respond });
    const id = await hook('unlinked');
    await link(id, roof);
    await slotsFullAndHeld('unlinked', roof);

    const { answer, ms } = await timed(() => oscar('DELETE', `/v2/webhooks/${id}/devices/${roof}`));
    expect(answer.status).toBe(204);
    expect(ms).toBeGreaterThanOrEqual(windowMs);
    held.release();
    await settled();
    expect(at('unlinked')).toHaveLength(slots);
    expect((await api.store.deliveries.stats()).queued).toBe(0);
  });

  it('an endpoint that answered 429 gets none of the points held for it during its pause, and all of them after', { timeout: 20_000 }, async () => {
    // The first round is answered 429 with a pause of a second, after the test lets it answer.
    const held = heldAnswers();
    let paused = 0;
    receiver = await startReceiver({
      respond: () => (paused++ < slots ? held.respond().then(() => ({ status: 429, headers: { 'retry-after': '1' } })) : { status: 200 }),
    });
    const id = await hook('pausing');
    await link(id);
    await slotsFullAndHeld('pausing');

    const refusedAt = Date.now();
    held.release();
    await until(() => at('pausing').length > slots, 'the endpoint is sent to again', 10_000);
    const nextSent = at('pausing')[slots];
    if (!nextSent) throw new Error('unreachable');
    // Nothing went in the pause the 429s asked for (a second from their settlement, which follows the refusals).
    expect(nextSent.at - refusedAt).toBeGreaterThanOrEqual(1_000);
    await settled();
    const ids = new Set(at('pausing').map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(20);
  });
});
