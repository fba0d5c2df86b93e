// Ordered delivery per device end to end, on SQLite and PostgreSQL: the real API with its deliverer
// and a real receiver that notes each device's requests in the order they arrive and how many of a
// device it has at once. The two-deliverer and kill -9 case is in pacing-processes.test.ts.
import { startPlatform } from '@platform/dev-platform/testing';
import { startedForTests, until } from '@platform/tool-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHook, startedApiForTests, telemetryPoint, type ApiClient, type Backend } from './harness.ts';
import { orderedArrivals, startReceiver, type Receiver } from './receiver.ts';

const platform = startedForTests(() => startPlatform());

describe.each<Backend>(['SQLite', 'PostgreSQL'])('ordered delivery per device on %s', (backend) => {
  // Many quick retries: a held-up device is retried until the test lets it through.
  const api = startedApiForTests(backend, () => platform().issuer, { deliverer: { retrySchedule: Array.from({ length: 100 }, () => 30) } });
  let oscar: ApiClient;
  let receiver: Receiver;
  let blocked = true;
  const arrivals = orderedArrivals();
  beforeAll(async () => {
    oscar = await api().clientAs('oscar');
    receiver = await startReceiver({
      respond: arrivals.responder((request) => {
        const tags = (request.json as { Point?: { Tags: { seq: string } } }).Point?.Tags;
        // Device 1001's first point fails while the test holds it up.
        return blocked && request.path === '/ordered' && arrivals.deviceOf(request) === 1001 && tags?.seq === '0'
          ? { status: 503 }
          : { status: 204, delayMs: 3 };
      }),
    });
  });
  afterAll(async () => {
    await receiver.close();
  });

  function hook(path: string, fields: Record<string, unknown>): Promise<string> {
    return createHook(oscar, receiver.url, path, { fields, devices: [1001, 1002], route: { scopeLevel: 'Connection', connectionTag: path } });
  }

  it('sends each device’s points one at a time in ingest order; a retrying one holds back its device only', { timeout: 30_000 }, async () => {
    const id = await hook('ordered', { ordering: 'PerDevice' });
    expect(((await oscar('GET', `/v2/webhooks/${id}`)).body as { ordering: string }).ordering).toBe('PerDevice');
    const points = Array.from({ length: 10 }, (_, seq) =>
      [1001, 1002].map((device) => telemetryPoint(device, { connectionTag: 'ordered', tags: { device: String(device), seq: String(seq) } })),
    );
    expect((await api().ingest(points.flat())).body).toEqual({ accepted: 20, queued: 20 });
    // Device 1002 goes through while device 1001's first point keeps failing.
    await until(() => arrivals.seqs('/ordered', 1002).length === 10, 'device 1002 delivered', 15_000);
    expect(arrivals.seqs('/ordered', 1002)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(new Set(arrivals.seqs('/ordered', 1001))).toEqual(new Set(['0']));
    blocked = false;
    await until(() => new Set(arrivals.seqs('/ordered', 1001)).size === 10, 'device 1001 delivered', 15_000);
    const seen = arrivals.seqs('/ordered', 1001);
    expect(seen.slice(seen.lastIndexOf('0'))).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(arrivals.mostAtOnce('/ordered')).toBe(1);
  });

  it('refuses an ordering that is neither None nor PerDevice, naming the field', async () => {
    const answer = await oscar('POST', '/v2/webhooks?companyId=1', {
      name: 'bad',
      url: `${receiver.url}/bad`,
      deliveryMode: 'Realtime',
      ordering: 'PerGateway',
    });
    expect(answer).toEqual({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED', message: 'ordering: must be one of None, PerDevice', field: 'ordering' } },
    });
  });
});
