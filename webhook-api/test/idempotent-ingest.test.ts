// Idempotent ingest end to end, on SQLite and PostgreSQL: the real API with its deliverer and a
// real receiver. A device gateway that retries an ingest after a timeout sends the same
// Idempotency-Key: each point is delivered once, however many retries arrive at once.
import { request as httpRequest } from 'node:http';
import { startPlatform } from '@platform/dev-platform/testing';
import { startedForTests } from '@platform/tool-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startedApiForTests, telemetryPoint, testIngestToken, type ApiClient, type Backend } from './harness.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const platform = startedForTests(() => startPlatform());
const boiler = 1001;

interface Answer {
  status: number;
  body: unknown;
  replayed: string | null;
}

describe.each<Backend>(['SQLite', 'PostgreSQL'])('idempotent ingest on %s', (backend) => {
  const api = startedApiForTests(backend, () => platform().issuer, { deliverer: {} });
  let oscar: ApiClient;
  let receiver: Receiver;
  let webhookId: string;
  beforeAll(async () => {
    oscar = await api().clientAs('oscar');
    receiver = await startReceiver();
    const created = await oscar('POST', '/v2/webhooks?companyId=1', { name: 'keys', url: `${receiver.url}/keys`, deliveryMode: 'Realtime' });
    webhookId = (created.body as { id: string }).id;
    await oscar('POST', `/v2/webhooks/${webhookId}/devices/${boiler}`);
    await oscar('POST', `/v2/webhooks/${webhookId}/devices/${boiler}/routes`, { scopeLevel: 'Device' });
  });
  afterAll(async () => {
    await oscar('DELETE', `/v2/webhooks/${webhookId}`);
    await receiver.close();
  });

  /** POSTs `points` with the ingest token and the given Idempotency-Key header(s), as sent on the wire. */
  function ingest(points: unknown[], key?: string | string[]): Promise<Answer> {
    const { hostname, port } = new URL(api().url);
    const body = JSON.stringify({ points });
    const headers = { authorization: `Bearer ${testIngestToken}`, 'content-type': 'application/json', ...(key !== undefined && { 'idempotency-key': key }) };
    return new Promise((resolve, reject) => {
      httpRequest({ host: hostname, port, method: 'POST', path: '/internal/telemetry', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(text) as unknown,
            replayed: (res.headers['idempotent-replayed'] as string | undefined) ?? null,
          });
        });
      })
        .on('error', reject)
        .end(body);
    });
  }
  const points = (run: string, n = 3) => Array.from({ length: n }, (_, i) => telemetryPoint(boiler, { tags: { run, seq: String(i) } }));
  const seqsOf = (run: string) =>
    receiver.received
      .map((r) => (r.json as { Point: { Tags: { run: string; seq: string } } }).Point.Tags)
      .filter((t) => t.run === run)
      .map((t) => t.seq);
  const idle = () => {
    const delivery = api().delivery;
    if (!delivery) throw new Error('no deliverer');
    return delivery.deliverer.whenIdle();
  };

  it('answers 20 concurrent retries of one key alike, and delivers each point once', async () => {
    const sent = points('concurrent');
    const answers = await Promise.all(Array.from({ length: 20 }, () => ingest(sent, 'gateway-7/batch-0001')));
    expect(answers.map((a) => [a.status, a.body])).toEqual(Array.from({ length: 20 }, () => [202, { accepted: 3, queued: 3 }]));
    expect(answers.filter((a) => a.replayed === 'true')).toHaveLength(19);
    await receiver.waitFor(3);
    await idle();
    expect(seqsOf('concurrent').sort()).toEqual(['0', '1', '2']);
  });

  it('answers a later retry of the key with the first answer and queues nothing', async () => {
    const sent = points('later', 2);
    expect(await ingest(sent, 'later-key')).toEqual({ status: 202, body: { accepted: 2, queued: 2 }, replayed: null });
    await idle();
    expect(await ingest(sent, 'later-key')).toEqual({ status: 202, body: { accepted: 2, queued: 2 }, replayed: 'true' });
    await idle();
    expect(seqsOf('later')).toHaveLength(2);
  });

  it('refuses the key with other points (409 naming it) and queues nothing', async () => {
    await ingest(points('first', 1), 'reused-key');
    const refused = await ingest(points('second', 1), 'reused-key');
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: {
        code: 'CONFLICT',
        message: 'Idempotency-Key: was sent within the last 24 hours with other points; use a new key for new points',
        field: 'Idempotency-Key',
      },
    });
    await idle();
    expect(seqsOf('second')).toEqual([]);
  });

  it.each([
    ['empty', ''],
    ['256 characters long', 'k'.repeat(256)],
    ['not printable ASCII', 'caf\u00e9'],
    ['given twice', ['one', 'two']],
  ])('refuses a key that is %s with 400 naming Idempotency-Key, and queues nothing', async (_, key) => {
    const answer = await ingest(points('bad-key', 1), key);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'Idempotency-Key' } });
    await idle();
    expect(seqsOf('bad-key')).toEqual([]);
  });

  it('keeps no key for a request it refused, and none without one: two requests without a key queue twice', async () => {
    expect((await ingest([{ deviceId: 'not a number' }], 'refused-first')).status).toBe(400);
    expect(await ingest(points('after-refusal', 1), 'refused-first')).toMatchObject({ status: 202, replayed: null });
    const unkeyed = points('unkeyed', 1);
    await ingest(unkeyed);
    await ingest(unkeyed);
    await idle();
    expect(seqsOf('unkeyed')).toEqual(['0', '0']);
    expect(seqsOf('after-refusal')).toEqual(['0']);
  });

  it('accepts a key of 255 printable characters with spaces inside', async () => {
    expect(await ingest(points('long-key', 1), `a ${'b'.repeat(252)}c`)).toMatchObject({ status: 202, body: { accepted: 1, queued: 1 } });
  });
});
