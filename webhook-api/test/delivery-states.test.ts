// The attempt log by delivery, end to end: real deliveries to a real receiver, on SQLite and
// PostgreSQL. GET /v2/webhooks/{id}/deliveries/by-state answers each delivery with its current state
// and its attempts, so what is still to be delivered is one call (the attempt log's ?outcome=retrying
// selects attempts, and shows deliveries settled since).
import { personToken, startPlatform } from '@platform/dev-platform/testing';
import { startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { createHook, telemetryPoint, type Backend, startedApiForTests } from './harness.ts';
import { peopleForTests } from './people.ts';
import { startReceiver } from './receiver.ts';

const platform = startedForTests(() => startPlatform());
/** Devices of company 1 in the dev platform's seed. */
const boiler = 1001;
const roof = 1002;

interface Delivery {
  deliveryId: string;
  webhookId: string;
  state: string;
  inFlight: boolean;
  pointCount: number;
  nextAttemptAt: string | null;
  settledAt: string | null;
  attempts: { attempt: number; outcome: string; responseStatus: number | null }[];
}

/** What the receiver answers a point of each value. */
const answerFor: Record<number, number> = { 1: 503, 2: 204, 3: 204, 4: 400, 9: 503 };

describe.each<Backend>(['SQLite', 'PostgreSQL'])('deliveries by state on %s', (backend) => {
  // One retry, a minute away: a retrying delivery stays so unless POST .../retry sends it now.
  const api = startedApiForTests(backend, () => platform().issuer, { deliverer: { retrySchedule: [60_000], maxAgeMs: 3_600_000 } });
  const receiver = startedForTests(() =>
    startReceiver({
      respond: (request) => ({ status: answerFor[(request.json as { Point: { Fields: { value: number } } }).Point.Fields.value] ?? 204 }),
    }),
  );
  const { oscar, vera, bjorn } = peopleForTests(api);

  const hook = (name: string, fields: Record<string, unknown>, ...devices: number[]) => createHook(oscar, receiver().url, name, { fields, devices });
  const settled = () => api().delivery?.deliverer.whenIdle();
  const byState = async (id: string, query = '', client = oscar) => {
    const answer = await client('GET', `/v2/webhooks/${id}/deliveries/by-state${query}`);
    expect(answer.status).toBe(200);
    return answer.body as Delivery[];
  };

  it('answers what is still to be delivered in one call, each delivery with its state and attempts, and filters by every state', async () => {
    // Ordered per device: the boiler's second point waits behind its first, which waits for its retry.
    const id = await hook('ordered', { ordering: 'PerDevice' }, boiler, roof);
    const point = (device: number, value: number) => telemetryPoint(device, { fields: { value } });
    expect((await api().ingest([point(boiler, 1), point(roof, 2), point(boiler, 3), point(roof, 4)])).status).toBe(202);
    await settled();
    await expect.poll(async () => (await byState(id, '?state=dropped')).length).toBe(1);
    await settled();

    const pending = await byState(id, '?state=waiting,retrying');
    expect(pending.map((d) => [d.state, d.attempts.length])).toEqual([
      ['waiting', 0],
      ['retrying', 1],
    ]);
    const [waiting, retrying] = pending;
    expect(retrying).toMatchObject({ inFlight: false, pointCount: 1, settledAt: null, attempts: [{ attempt: 0, outcome: 'retrying', responseStatus: 503 }] });
    expect(retrying?.webhookId).toBe(`msg_${retrying?.deliveryId}`);
    expect(Date.parse(retrying?.nextAttemptAt ?? '') - Date.now()).toBeGreaterThan(30_000);
    expect(waiting).toMatchObject({ state: 'waiting', pointCount: 1, attempts: [] });

    const all = await byState(id);
    expect(all.map((d) => d.state)).toEqual(['dropped', 'waiting', 'delivered', 'retrying']);
    expect(all.find((d) => d.state === 'dropped')).toMatchObject({ attempts: [{ outcome: 'dropped', responseStatus: 400 }], nextAttemptAt: null });
    expect(all.find((d) => d.state === 'delivered')?.settledAt).toEqual(expect.any(String));
    for (const state of ['waiting', 'retrying', 'delivered', 'dropped']) {
      expect((await byState(id, `?state=${state}`)).map((d) => d.state)).toEqual([state]);
    }
    expect(await byState(id, '?state=failed')).toEqual([]);
    // The attempt log's filter selects attempts: it cannot tell what still waits.
    const retryingAttempts = (await oscar('GET', `/v2/webhooks/${id}/deliveries?outcome=retrying`)).body as { deliveryId: string; webhookId: string }[];
    expect(retryingAttempts.map((a) => [a.deliveryId, a.webhookId])).toEqual([[retrying?.deliveryId, retrying?.webhookId]]);
  });

  it('shows a delivery whose retries are spent as failed, with both attempts', async () => {
    const id = await hook('failing', {}, boiler);
    expect((await api().ingest([telemetryPoint(boiler, { fields: { value: 9 } })])).status).toBe(202);
    await expect.poll(async () => (await byState(id, '?state=retrying')).length).toBe(1);
    const [retrying] = await byState(id, '?state=retrying');
    expect((await oscar('POST', `/v2/webhooks/${id}/deliveries/${retrying?.deliveryId}/retry`)).status).toBe(202);
    await expect.poll(async () => (await byState(id, '?state=failed')).length).toBe(1);
    const [failed] = await byState(id, '?state=failed');
    expect(failed?.attempts.map((a) => [a.attempt, a.outcome, a.responseStatus])).toEqual([
      [0, 'retrying', 503],
      [1, 'failed', 503],
    ]);
    expect(await byState(id, '?state=waiting,retrying')).toEqual([]);
  });

  it('pages newest first, refuses a state it does not know naming the field, and keeps the tenant rules', async () => {
    const id = await hook('paged', {}, roof);
    expect((await api().ingest([2, 3, 2].map((value) => telemetryPoint(roof, { fields: { value } })))).status).toBe(202);
    await expect.poll(async () => (await byState(id, '?state=delivered')).length).toBe(3);
    const response = await fetch(`${api().url}/v2/webhooks/${id}/deliveries/by-state?limit=2`, {
      headers: { authversion: 'V0.0.1', authorization: `Bearer ${await personToken(platform().issuer, 'oscar')}` },
    });
    const first = (await response.json()) as Delivery[];
    expect(first).toHaveLength(2);
    const next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
    expect(next).toMatch(new RegExp(`^/v2/webhooks/${id}/deliveries/by-state\\?`));
    const second = (await oscar('GET', next ?? '')).body as Delivery[];
    expect([...first, ...second].map((d) => d.deliveryId)).toEqual((await byState(id)).map((d) => d.deliveryId));

    const bad = await oscar('GET', `/v2/webhooks/${id}/deliveries/by-state?state=waiting,pending`);
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED', field: 'state' } } });
    expect((bad.body as { error: { message: string } }).error.message).toContain('"pending" is none of them');
    expect(await byState(id, '', vera)).toHaveLength(3);
    expect((await bjorn('GET', `/v2/webhooks/${id}/deliveries/by-state`)).status).toBe(404);
  });
});
