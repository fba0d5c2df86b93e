// The delivery tools end to end: a real dev platform, a real webhook API on SQLite (its queue
// driven by the test, as a deliverer would drive it) and the tool service on loopback, called with
// delegated tokens from a real token exchange.
import { startPlatform } from '@platform/dev-platform/testing';
import { startedForTests } from '@platform/tool-sdk/testing';
import { startedApiForTests } from '@platform/webhook-api/testing';
import { describe, expect, it } from 'vitest';
import { delegatedCalls, startedToolServiceForTests } from './harness.ts';

const platform = startedForTests(() => startPlatform());
const api = startedApiForTests('SQLite', () => platform().issuer);
const tools = startedToolServiceForTests(() => ({ platformUrl: platform().issuer, webhookApiUrl: api().url }));
const { tokens, call, result } = delegatedCalls(() => platform().issuer, tools);

interface Delivery {
  deliveryId: string;
  webhookId: string;
  state: string;
  nextAttemptAt: string | null;
  attempts: { attempt: number; outcome: string; responseStatus: number | null; error: string | null }[];
}

/** A webhook of company 1 routing device 1001, with two points of it queued, attempted once each: one waits for its retry, one was dropped. */
async function webhookWithAttempts(): Promise<{ webhookConfigId: string; waiting: string; dropped: string }> {
  const { webhook } = await result<{ webhook: { id: string } }>('create_webhook', {
    companyId: 1,
    name: 'Boiler feed',
    url: 'https://receiver.example/hook',
    deliveryMode: 'Realtime',
  });
  const webhookConfigId = webhook.id;
  await result('link_device', { webhookConfigId, deviceId: 1001 });
  const connectionTag = `conn-${webhookConfigId}`;
  await result('add_scope', { webhookConfigId, deviceId: 1001, scopeLevel: 'Connection', connectionTag });
  const queue = api().store.deliveries;
  const point = { deviceId: 1001, gatewayId: 'gw-1', connectionTag, measurement: 'temperature', point: '{"Measurement":"temperature"}' };
  const now = Date.now();
  expect(await queue.ingest([point, point], now)).toEqual({ queued: 2 });
  const claimed = (await queue.claim({ owner: 'test', now, leaseMs: 60_000, limit: 100, perConfig: 100, inFlight: new Map() })).filter(
    (d) => d.config.id === webhookConfigId,
  );
  const [waiting, dropped] = claimed;
  if (!waiting || !dropped) throw new Error('not claimed');
  const settlement = { attempt: 0, responseBody: '', startedAt: now, durationMs: 5, pointCount: 1 };
  await queue.settle(
    'test',
    [
      { ...settlement, id: waiting.id, outcome: 'retrying', status: 503, error: 'the endpoint answered 503', nextAttemptAt: now + 3_600_000 },
      { ...settlement, id: dropped.id, outcome: 'dropped', status: 410, error: 'the endpoint answered 410' },
    ],
    now,
  );
  return { webhookConfigId, waiting: waiting.id, dropped: dropped.id };
}

describe('the delivery tools', () => {
  it('list the deliveries by state, each with its attempts and webhookId, what still waits in one call, and page them by cursor', async () => {
    const { webhookConfigId, waiting, dropped } = await webhookWithAttempts();
    const all = await result<{ deliveries: Delivery[]; nextCursor: string | null }>('list_deliveries', { webhookConfigId });
    expect(all.nextCursor).toBeNull();
    expect(all.deliveries.map((d) => [d.deliveryId, d.state])).toEqual(
      expect.arrayContaining([
        [waiting, 'retrying'],
        [dropped, 'dropped'],
      ]),
    );
    expect(all.deliveries.find((d) => d.deliveryId === waiting)?.nextAttemptAt).toMatch(/^\d{4}-/);
    expect(all.deliveries.find((d) => d.deliveryId === dropped)).toMatchObject({
      nextAttemptAt: null,
      webhookId: `msg_${dropped}`,
      attempts: [{ attempt: 0, outcome: 'dropped', responseStatus: 410 }],
    });
    expect(JSON.stringify(all)).not.toContain('webhookConfigId');

    const pending = await result<{ deliveries: Delivery[] }>('list_deliveries', { webhookConfigId, states: ['waiting', 'retrying'] });
    expect(pending.deliveries.map((d) => d.deliveryId)).toEqual([waiting]);
    const onlyDropped = await result<{ deliveries: Delivery[] }>('list_deliveries', { webhookConfigId, states: ['dropped'] });
    expect(onlyDropped.deliveries.map((d) => d.deliveryId)).toEqual([dropped]);

    const first = await result<{ deliveries: Delivery[]; nextCursor: string | null }>('list_deliveries', { webhookConfigId, limit: 1 });
    expect(first.deliveries).toHaveLength(1);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await result<{ deliveries: Delivery[]; nextCursor: string | null }>('list_deliveries', {
      webhookConfigId,
      limit: 1,
      cursor: first.nextCursor,
    });
    expect(second.nextCursor).toBeNull();
    expect([...first.deliveries, ...second.deliveries].map((d) => d.deliveryId).sort()).toEqual([waiting, dropped].sort());
  });

  it('read a deleted configuration’s deliveries until retention, what was waiting failed with the reason', async () => {
    const { webhookConfigId, waiting, dropped } = await webhookWithAttempts();
    expect(await result('delete_webhook', { webhookConfigId })).toEqual({ deleted: true, webhookConfigId });
    const { deliveries } = await result<{ deliveries: Delivery[] }>('list_deliveries', { webhookConfigId });
    expect(deliveries.map((d) => [d.deliveryId, d.state]).sort()).toEqual(
      [
        [waiting, 'failed'],
        [dropped, 'dropped'],
      ].sort(),
    );
    expect(deliveries.find((d) => d.deliveryId === waiting)?.attempts.at(-1)?.error).toBe('not sent: its webhook configuration was deleted');
    expect(await call('get_webhook', { webhookConfigId })).toMatchObject({
      ok: true,
      isError: true,
      result: { code: 'NOT_FOUND', message: expect.stringContaining('was deleted at') as unknown },
    });
  });

  it('answer a msg_ id given where a configuration id belongs with the field and the REST API’s code', async () => {
    const { dropped } = await webhookWithAttempts();
    const answer = await call('list_deliveries', { webhookConfigId: `msg_${dropped}` });
    expect(answer).toMatchObject({ ok: true, isError: true, result: { code: 'NOT_FOUND', status: 404 } });
    // An unknown state is refused before any call, naming the field.
    expect(await call('list_deliveries', { webhookConfigId: dropped, states: ['pending'] })).toMatchObject({ ok: false, codeName: 'INVALID_ARGUMENT' });
  });

  it('send a waiting delivery now and a dropped one again, as the REST API does; an API refusal reads as a tool error', async () => {
    const { webhookConfigId, waiting, dropped } = await webhookWithAttempts();
    const retried = await result<{ deliveryId: string; nextAttemptAt: string }>('retry_delivery', { webhookConfigId, deliveryId: waiting });
    expect(retried.deliveryId).toBe(waiting);
    expect(Date.parse(retried.nextAttemptAt)).toBeLessThanOrEqual(Date.now());
    const resent = await result<{ deliveryId: string }>('resend_delivery', { webhookConfigId, deliveryId: dropped });
    expect(resent.deliveryId).not.toBe(dropped);
    // Both are due now: a deliverer's next claim takes them, the resend with the dropped one's webhook-id.
    const due = (await api().store.deliveries.claim({ owner: 'test', now: Date.now() + 1, leaseMs: 60_000, limit: 100, perConfig: 100, inFlight: new Map() }))
      .filter((d) => d.config.id === webhookConfigId)
      .map((d) => [d.id, d.webhookId, d.attempts]);
    expect(due).toEqual(
      expect.arrayContaining([
        [waiting, `msg_${waiting}`, 1],
        [resent.deliveryId, `msg_${dropped}`, 0],
      ]),
    );
    await api().store.deliveries.release('test');

    const again = await call('retry_delivery', { webhookConfigId, deliveryId: dropped });
    expect(again).toMatchObject({ ok: true, isError: true, result: { code: 'CONFLICT', status: 409 } });
  });

  it('let a viewer read the attempt log but not act on it', async () => {
    const { webhookConfigId, waiting, dropped } = await webhookWithAttempts();
    expect((await result<{ deliveries: Delivery[] }>('list_deliveries', { webhookConfigId }, tokens.vera)).deliveries).toHaveLength(2);
    for (const [name, deliveryId] of [
      ['retry_delivery', waiting],
      ['resend_delivery', dropped],
    ] as const) {
      expect(await call(name, { webhookConfigId, deliveryId }, tokens.vera)).toMatchObject({ ok: false, codeName: 'PERMISSION_DENIED' });
    }
    expect((await result<{ deliveries: Delivery[] }>('list_deliveries', { webhookConfigId })).deliveries.map((d) => d.state).sort()).toEqual([
      'dropped',
      'retrying',
    ]);
  });
});

describe('resend_failed_deliveries', () => {
  const since = new Date(Date.now() - 60_000).toISOString();

  it('queues every dropped or failed delivery since a time again through the recovery of the API, reporting progress, and never queues one twice', async () => {
    // One dropped delivery and one waiting for its retry: only the dropped one is queued again.
    const { webhookConfigId } = await webhookWithAttempts();
    const progress: { progress: number; total: number | undefined }[] = [];
    const answer = await tools().client.call('resend_failed_deliveries', { webhookConfigId, since }, tokens.oscar, {
      client: { progress: true },
      onEvent: (event) => {
        if (event.progress) progress.push({ progress: event.progress.progress, total: event.progress.total ?? undefined });
      },
    });
    expect(answer).toMatchObject({ ok: true, isError: false, result: { queued: 1, more: false } });
    expect(progress).toEqual([{ progress: 1, total: 1 }]);
    // A second recovery queues nothing: the first one's copy is pending or sent.
    expect(await result('resend_failed_deliveries', { webhookConfigId, since })).toEqual({ queued: 0, more: false });
  });

  it('may run as an MCP task: ListTools offers it with optional task support', async () => {
    const listed = (await tools().client.list()).find((tool) => tool.name === 'resend_failed_deliveries');
    expect(listed?.taskSupport).toBe('TASK_SUPPORT_OPTIONAL');
  });

  it('is refused to a viewer', async () => {
    const { webhookConfigId } = await webhookWithAttempts();
    expect(await call('resend_failed_deliveries', { webhookConfigId, since }, tokens.vera)).toMatchObject({ ok: false, codeName: 'PERMISSION_DENIED' });
  });
});
