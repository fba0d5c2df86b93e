// Deleting a configuration keeps its history: its attempt log stays readable by its id, for its
// company's viewers, marked as deleted, until retention removes it; nothing of it is sent any more.
// A real API with its deliverer, a real receiver, on SQLite and PostgreSQL.
import { personToken, startPlatform } from '@platform/dev-platform/testing';
import { startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { telemetryPoint, type Backend, startedApiForTests } from './harness.ts';
import { peopleForTests } from './people.ts';
import { startReceiver } from './receiver.ts';

const platform = startedForTests(() => startPlatform());
/** A device of company 1 in the dev platform's seed. */
const boiler = 1001;

interface Attempt {
  deliveryId: string;
  outcome: string;
  error: string | null;
}

describe.each<Backend>(['SQLite', 'PostgreSQL'])('a deleted configuration’s history on %s', (backend) => {
  // A retry a minute away: the delivery that got a 503 still waits when the configuration is deleted.
  const api = startedApiForTests(backend, () => platform().issuer, { deliverer: { retrySchedule: [60_000], maxAgeMs: 3_600_000 } });
  const receiver = startedForTests(() =>
    startReceiver({
      respond: (request) => ({ status: (request.json as { Point: { Fields: { value: number } } }).Point.Fields.value === 2 ? 503 : 204 }),
    }),
  );
  const { oscar, vera, bjorn } = peopleForTests(api);

  async function deletedWithHistory(name: string): Promise<string> {
    const created = await oscar('POST', '/v2/webhooks?companyId=1', {
      name,
      url: `${receiver().url}/${name}`,
      deliveryMode: 'Realtime',
      authType: 'Bearer',
      authPayload: '{"token":"history-secret-1"}',
    });
    const { id } = created.body as { id: string };
    expect((await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}`)).status).toBe(201);
    expect((await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}/routes`, { scopeLevel: 'Device' })).status).toBe(201);
    expect((await api().ingest([1, 2].map((value) => telemetryPoint(boiler, { fields: { value } })))).status).toBe(202);
    await expect.poll(async () => ((await oscar('GET', `/v2/webhooks/${id}/deliveries`)).body as Attempt[]).length).toBe(2);
    expect(await oscar('DELETE', `/v2/webhooks/${id}`)).toEqual({ status: 200, body: true });
    return id;
  }

  const read = async (path: string, as = 'oscar') =>
    fetch(`${api().url}${path}`, { headers: { authversion: 'V0.0.1', authorization: `Bearer ${await personToken(platform().issuer, as)}` } });

  it('keeps the attempt log readable by id for the company’s viewers, marked deleted, the waiting delivery failed with the reason', async () => {
    const before = Date.now();
    const id = await deletedWithHistory('kept-history');
    for (const person of ['oscar', 'vera']) {
      const response = await read(`/v2/webhooks/${id}/deliveries`, person);
      expect(response.status).toBe(200);
      expect(Date.parse(response.headers.get('webhook-config-deleted-at') ?? '')).toBeGreaterThanOrEqual(before);
      const attempts = (await response.json()) as Attempt[];
      expect(attempts[0]).toMatchObject({ outcome: 'failed', error: 'not sent: its webhook configuration was deleted' });
      expect(
        attempts
          .slice(1)
          .map((a) => a.outcome)
          .sort(),
      ).toEqual(['delivered', 'retrying']);
    }
    const byState = await read(`/v2/webhooks/${id}/deliveries/by-state`);
    expect(byState.headers.get('webhook-config-deleted-at')).toEqual(expect.any(String));
    expect(((await byState.json()) as { state: string }[]).map((d) => d.state).sort()).toEqual(['delivered', 'failed']);
    expect(await oscar('GET', `/v2/webhooks/${id}/deliveries/by-state?state=waiting,retrying`)).toEqual({ status: 200, body: [] });

    // The configuration itself is gone: 404, saying so to its company's viewers and to nobody else.
    const gone = await vera('GET', `/v2/webhooks/${id}`);
    expect(gone.status).toBe(404);
    expect((gone.body as { error: { message: string } }).error.message).toMatch(
      new RegExp(
        `^webhook configuration ${id} was deleted at \\d{4}-.*Z; its attempt log stays readable at GET /v2/webhooks/${id}/deliveries until retention removes it$`,
      ),
    );
    for (const path of [`/v2/webhooks/${id}`, `/v2/webhooks/${id}/deliveries`, `/v2/webhooks/${id}/deliveries/by-state`]) {
      expect(await bjorn('GET', path)).toEqual({ status: 404, body: { error: { code: 'NOT_FOUND', message: `webhook configuration ${id} not found` } } });
    }
    expect(((await oscar('GET', '/v2/webhooks?companyId=1')).body as { id: string }[]).map((c) => c.id)).not.toContain(id);
    // Nothing can be done with it any more, and nothing of it is sent.
    const sent = receiver().received.length;
    for (const [method, path, body] of [
      ['PUT', `/v2/webhooks/${id}`, { name: 'x', url: `${receiver().url}/x`, deliveryMode: 'Realtime' }],
      ['POST', `/v2/webhooks/${id}/devices/${boiler}`, undefined],
      ['POST', `/v2/webhooks/${id}/signing-secret/rotate`, undefined],
      ['POST', `/v2/webhooks/${id}/test`, undefined],
      ['DELETE', `/v2/webhooks/${id}`, undefined],
      ['POST', `/v2/webhooks/${id}/deliveries/recover`, { since: new Date(before).toISOString() }],
    ] as const) {
      expect((await oscar(method, path, body)).status, `${method} ${path}`).toBe(404);
    }
    await api().delivery?.deliverer.whenIdle();
    expect(receiver().received.length).toBe(sent);
    expect(api().logs.join('\n')).not.toContain('history-secret-1');
  });

  it('is removed by retention with its last delivery, and then is not found', async () => {
    const id = await deletedWithHistory('pruned-history');
    // The deliverers' housekeeping, past the retention of everything settled so far.
    await api().store.deliveries.prune(Date.now() + 1, 100_000);
    for (const path of [`/v2/webhooks/${id}/deliveries`, `/v2/webhooks/${id}/deliveries/by-state`, `/v2/webhooks/${id}`]) {
      expect(await oscar('GET', path)).toEqual({ status: 404, body: { error: { code: 'NOT_FOUND', message: `webhook configuration ${id} not found` } } });
    }
    expect(await api().store.getDeletedConfig(id)).toBeUndefined();
  });
});
