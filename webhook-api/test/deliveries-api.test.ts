import { randomUUID } from 'node:crypto';
import { personToken, startPlatform } from '@platform/dev-platform/testing';
import { startedForTests } from '@platform/tool-sdk/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimedDelivery, Settlement } from '../src/queue/delivery-queue.ts';
import { startedApiForTests, type Backend } from './harness.ts';
import { peopleForTests } from './people.ts';

const platform = startedForTests(() => startPlatform());

const bearerToken = 'attempt-log-secret-token-5';
const hook = {
  name: 'Boiler feed',
  url: 'https://receiver.example/hook',
  deliveryMode: 'Realtime',
  authType: 'Bearer',
  authPayload: JSON.stringify({ token: bearerToken }),
  customHeaders: JSON.stringify({ 'X-Tenant': 'acme-north' }),
};

/** The path of a Link header's rel="next" target. */
function nextOf(link: string | null): string {
  const match = /^<([^>]+)>; rel="next"$/.exec(link ?? '');
  if (!match?.[1]) throw new Error(`no next link in ${String(link)}`);
  return match[1];
}

interface Attempt {
  deliveryId: string;
  webhookId: string;
  nextAttemptAt: string | null;
  attempt: number;
  outcome: string;
  responseStatus: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
  startedAt: string;
  pointCount: number;
}

describe.each<Backend>(['SQLite', 'PostgreSQL'])('the delivery endpoints on %s', (backend) => {
  const api = startedApiForTests(backend, () => platform().issuer);
  const { oscar, vera, bjorn } = peopleForTests(api);
  let oscarToken: string;
  beforeAll(async () => {
    oscarToken = await personToken(platform().issuer, 'oscar');
  });
  afterEach(async () => {
    // Every test leaves nothing queued: a later test's claims take only its own deliveries.
    expect((await api().store.deliveries.stats()).queued).toBe(0);
  });

  /** A configuration of company 1 with device 1001 routed on a connection of its own, so only its test's points reach it. */
  async function createHook() {
    const created = await oscar('POST', '/v2/webhooks?companyId=1', hook);
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    const connectionTag = `conn-${randomUUID()}`;
    expect((await oscar('POST', `/v2/webhooks/${id}/devices/1001`)).status).toBe(201);
    expect((await oscar('POST', `/v2/webhooks/${id}/devices/1001/routes`, { scopeLevel: 'Connection', connectionTag })).status).toBe(201);
    return { id, connectionTag };
  }

  const pointText = (value: number) => JSON.stringify({ Measurement: 'temperature', Fields: { value }, Tags: {}, UtcTimestamp: '2026-11-22T12:00:00.000Z' });

  /** Queues `count` points for the configuration (one Realtime delivery each) and claims them, as a deliverer would. */
  async function claimed(target: { id: string; connectionTag: string }, count: number): Promise<ClaimedDelivery[]> {
    const points = Array.from({ length: count }, (_, i) => ({
      deviceId: 1001,
      gatewayId: 'gw-1',
      connectionTag: target.connectionTag,
      measurement: 'temperature',
      point: pointText(i),
    }));
    expect(await api().store.deliveries.ingest(points, Date.now())).toEqual({ queued: count });
    return claimAgain(target.id, count);
  }

  const claimAgain = (configId: string, count: number) => claimAgainAt(configId, Date.now() + 1, count);

  async function claimAgainAt(configId: string, now: number, count = 1): Promise<ClaimedDelivery[]> {
    const deliveries = await api().store.deliveries.claim({
      owner: 'test',
      now,
      leaseMs: 60_000,
      limit: 1000,
      perConfig: 1000,
      inFlight: new Map(),
    });
    expect(deliveries.map((d) => d.config.id)).toEqual(Array<string>(count).fill(configId));
    return deliveries;
  }

  let startedAt = Date.parse('2026-11-22T12:00:00.000Z');
  /** Records one attempt of a claimed delivery; a `retrying` one is due again at once. */
  async function settle(delivery: ClaimedDelivery, outcome: Settlement['outcome'], extra: Partial<Settlement> = {}) {
    startedAt += 1000;
    const settlement: Settlement = {
      id: delivery.id,
      outcome,
      attempt: delivery.attempts,
      status: outcome === 'delivered' ? 200 : 500,
      error: outcome === 'delivered' ? null : 'HTTP 500',
      responseBody: '',
      startedAt,
      durationMs: 12.5,
      pointCount: delivery.points.length,
      ...(outcome === 'retrying' && { nextAttemptAt: Date.now() }),
      ...extra,
    };
    expect(await api().store.deliveries.settle('test', [settlement], Date.now())).toEqual(new Set([delivery.id]));
  }

  async function settleEach(deliveries: ClaimedDelivery[], outcome: Settlement['outcome']) {
    for (const delivery of deliveries) await settle(delivery, outcome);
  }

  /** GET as oscar, with the Link header apiClient does not show. */
  async function getPage(path: string) {
    const response = await fetch(`${api().url}${path}`, { headers: { authversion: 'V0.0.1', authorization: `Bearer ${oscarToken}` } });
    const text = await response.text();
    return { status: response.status, link: response.headers.get('link'), text, body: JSON.parse(text) as unknown };
  }

  describe('the attempt log', () => {
    it('lists every attempt newest first, with every field and nothing else', async () => {
      const target = await createHook();
      const [first, second] = await claimed(target, 2);
      if (!first || !second) throw new Error('not claimed');
      await settle(first, 'retrying', { status: 503, error: 'HTTP 503', responseBody: 'busy', durationMs: 30.25 });
      await settle(second, 'delivered', { responseBody: '{"ok":true}', durationMs: 4 });
      const [retried] = await claimAgain(target.id, 1);
      if (!retried) throw new Error('not claimed again');
      await settle(retried, 'dropped', { status: 400, error: 'HTTP 400', responseBody: '{"error":"unknown field"}', durationMs: 7.5 });

      const page = await getPage(`/v2/webhooks/${target.id}/deliveries`);
      expect(page.status).toBe(200);
      expect(page.link).toBeNull();
      expect(page.body).toEqual([
        {
          deliveryId: first.id,
          webhookId: `msg_${first.id}`,
          attempt: 1,
          outcome: 'dropped',
          responseStatus: 400,
          error: 'HTTP 400',
          responseBody: '{"error":"unknown field"}',
          durationMs: 7.5,
          startedAt: new Date(startedAt).toISOString(),
          pointCount: 1,
          nextAttemptAt: null,
          test: false,
        },
        {
          deliveryId: second.id,
          webhookId: `msg_${second.id}`,
          attempt: 0,
          outcome: 'delivered',
          responseStatus: 200,
          error: null,
          responseBody: '{"ok":true}',
          durationMs: 4,
          startedAt: new Date(startedAt - 1000).toISOString(),
          pointCount: 1,
          nextAttemptAt: null,
          test: false,
        },
        {
          deliveryId: first.id,
          webhookId: `msg_${first.id}`,
          attempt: 0,
          outcome: 'retrying',
          responseStatus: 503,
          error: 'HTTP 503',
          responseBody: 'busy',
          durationMs: 30.25,
          startedAt: new Date(startedAt - 2000).toISOString(),
          pointCount: 1,
          nextAttemptAt: null,
          test: false,
        },
      ]);
    });

    it('shows when a delivery waiting for its retry is due, on its latest attempt only, until it is settled', async () => {
      const target = await createHook();
      const [waiting] = await claimed(target, 1);
      if (!waiting) throw new Error('not claimed');
      const due = Date.parse('2030-01-01T00:00:00.000Z');
      await settle(waiting, 'retrying', { nextAttemptAt: due - 60_000 });
      const [again] = await claimAgainAt(target.id, due - 60_000 + 1);
      if (!again) throw new Error('not claimed again');
      await settle(again, 'retrying', { nextAttemptAt: due });
      const attempts = (await getPage(`/v2/webhooks/${target.id}/deliveries`)).body as Attempt[];
      expect(attempts.map((a) => [a.attempt, a.nextAttemptAt])).toEqual([
        [1, '2030-01-01T00:00:00.000Z'],
        [0, null],
      ]);
      const [last] = await claimAgainAt(target.id, due + 1);
      if (!last) throw new Error('not claimed at last');
      await settle(last, 'failed');
      const settled = (await getPage(`/v2/webhooks/${target.id}/deliveries`)).body as Attempt[];
      expect(settled.map((a) => a.nextAttemptAt)).toEqual([null, null, null]);
    });

    it('filters by the time an attempt started (since), with the outcome filter too', async () => {
      const target = await createHook();
      const [a, b, c] = await claimed(target, 3);
      if (!a || !b || !c) throw new Error('not claimed');
      await settle(a, 'dropped');
      await settle(b, 'delivered');
      await settle(c, 'dropped');
      const middle = new Date(startedAt - 1000).toISOString();
      const list = async (query: string) => ((await getPage(`/v2/webhooks/${target.id}/deliveries${query}`)).body as Attempt[]).map((x) => x.deliveryId);
      expect(await list(`?since=${encodeURIComponent(middle)}`)).toEqual([c.id, b.id]);
      expect(await list(`?since=${encodeURIComponent(middle)}&outcome=dropped`)).toEqual([c.id]);
      expect(await list(`?since=${encodeURIComponent(new Date(startedAt + 1).toISOString())}`)).toEqual([]);
      const bad = await oscar('GET', `/v2/webhooks/${target.id}/deliveries?since=yesterday`);
      expect(bad).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED', field: 'since' } } });
    });

    it('never carries the credentials or headers of the configuration', async () => {
      const target = await createHook();
      const deliveries = await claimed(target, 3);
      await settleEach(deliveries, 'failed');
      const page = await getPage(`/v2/webhooks/${target.id}/deliveries`);
      expect((page.body as Attempt[]).length).toBe(3);
      for (const forbidden of [bearerToken, 'authorization', 'Bearer', 'authPayload', 'acme-north', 'headers']) {
        expect(page.text.toLowerCase()).not.toContain(forbidden.toLowerCase());
      }
      expect(page.text).not.toContain(oscarToken);
    });

    it('filters by outcome', async () => {
      const target = await createHook();
      const [a, b, c] = await claimed(target, 3);
      if (!a || !b || !c) throw new Error('not claimed');
      await settle(a, 'dropped', { status: 410 });
      await settle(b, 'delivered');
      await settle(c, 'failed');
      const outcomes = async (query: string) => ((await getPage(`/v2/webhooks/${target.id}/deliveries${query}`)).body as Attempt[]).map((x) => x.outcome);
      expect(await outcomes('')).toEqual(['failed', 'delivered', 'dropped']);
      expect(await outcomes('?outcome=dropped')).toEqual(['dropped']);
      expect(await outcomes('?outcome=delivered')).toEqual(['delivered']);
      expect(await outcomes('?outcome=retrying')).toEqual([]);
    });

    it('pages newest first by limit and cursor, following the Link, which keeps the filter', async () => {
      const target = await createHook();
      const deliveries = await claimed(target, 5);
      await settleEach(deliveries, 'delivered');
      const ids: string[][] = [];
      let path: string | undefined = `/v2/webhooks/${target.id}/deliveries?outcome=delivered&limit=2`;
      while (path !== undefined) {
        const page = await getPage(path);
        expect(page.status).toBe(200);
        ids.push((page.body as Attempt[]).map((x) => x.deliveryId));
        if (page.link === null) path = undefined;
        else {
          path = nextOf(page.link);
          expect(path).toMatch(new RegExp(`^/v2/webhooks/${target.id}/deliveries\\?outcome=delivered&limit=2&cursor=[\\w-]+$`));
        }
      }
      const newestFirst = deliveries.map((d) => d.id).reverse();
      expect(ids).toEqual([newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);
    });

    it('answers 50 attempts by default, and at most 100', async () => {
      const target = await createHook();
      await settleEach(await claimed(target, 101), 'delivered');
      const byDefault = await getPage(`/v2/webhooks/${target.id}/deliveries`);
      expect((byDefault.body as Attempt[]).length).toBe(50);
      expect(nextOf(byDefault.link)).toMatch(/\?cursor=/);
      const most = await getPage(`/v2/webhooks/${target.id}/deliveries?limit=100`);
      expect((most.body as Attempt[]).length).toBe(100);
      expect(((await getPage(nextOf(most.link))).body as Attempt[]).length).toBe(1);
    });

    it.each([
      ['outcome=Delivered', 'outcome', 'must be one of delivered, retrying, dropped, failed'],
      ['outcome=queued', 'outcome', 'must be one of delivered, retrying, dropped, failed'],
      ['outcome=dropped&outcome=failed', 'outcome', 'must be one of'],
      ['limit=0', 'limit', 'from 1 to 100'],
      ['limit=101', 'limit', 'from 1 to 100'],
      ['limit=ten', 'limit', 'from 1 to 100'],
      ['cursor=not*a*cursor', 'cursor', 'Link header of this list'],
      [`cursor=${Buffer.from('configs of company 1\n5').toString('base64url')}`, 'cursor', 'Link header of this list'],
    ])('answers 400 for %s, naming the field', async (query, field, message) => {
      const target = await createHook();
      const result = await oscar('GET', `/v2/webhooks/${target.id}/deliveries?${query}`);
      expect(result).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED', field } } });
      expect((result.body as { error: { message: string } }).error.message).toContain(message);
    });

    it("refuses another configuration's cursor with 400", async () => {
      const first = await createHook();
      const second = await createHook();
      await settleEach(await claimed(first, 2), 'delivered');
      const cursor = new URL(nextOf((await getPage(`/v2/webhooks/${first.id}/deliveries?limit=1`)).link), 'http://x').searchParams.get('cursor');
      expect(await oscar('GET', `/v2/webhooks/${second.id}/deliveries?cursor=${cursor ?? ''}`)).toMatchObject({
        status: 400,
        body: { error: { code: 'VALIDATION_FAILED', field: 'cursor' } },
      });
    });

    it('answers 404 for an unknown configuration', async () => {
      expect((await oscar('GET', `/v2/webhooks/${randomUUID()}/deliveries`)).status).toBe(404);
      expect((await oscar('GET', '/v2/webhooks/not-a-config/deliveries')).status).toBe(404);
    });
  });

  describe('resend', () => {
    it('queues a dropped delivery again as a new delivery with the same points (202), and a failed one', async () => {
      const target = await createHook();
      const [dropped, failed] = await claimed(target, 2);
      if (!dropped || !failed) throw new Error('not claimed');
      await settle(dropped, 'dropped', { status: 400 });
      await settle(failed, 'failed');

      const resent = await oscar('POST', `/v2/webhooks/${target.id}/deliveries/${dropped.id}/resend`);
      expect(resent).toEqual({ status: 202, body: { deliveryId: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown } });
      const newId = (resent.body as { deliveryId: string }).deliveryId;
      expect(newId).not.toBe(dropped.id);
      const [again] = await claimAgain(target.id, 1);
      expect(again).toMatchObject({ id: newId, attempts: 0, points: dropped.points });
      if (again) await settle(again, 'delivered');

      const failedAgain = await oscar('POST', `/v2/webhooks/${target.id}/deliveries/${failed.id}/resend`);
      expect(failedAgain.status).toBe(202);
      const [third] = await claimAgain(target.id, 1);
      expect(third).toMatchObject({ id: (failedAgain.body as { deliveryId: string }).deliveryId, points: failed.points });
      if (third) await settle(third, 'delivered');
    });

    it('answers 409 for a delivered delivery and for one still being delivered, and queues nothing', async () => {
      const target = await createHook();
      const [delivered, retrying] = await claimed(target, 2);
      if (!delivered || !retrying) throw new Error('not claimed');
      await settle(delivered, 'delivered');
      await settle(retrying, 'retrying');
      const before = await api().store.deliveries.stats();

      expect(await oscar('POST', `/v2/webhooks/${target.id}/deliveries/${delivered.id}/resend`)).toEqual({
        status: 409,
        body: {
          error: {
            code: 'CONFLICT',
            message: `delivery ${delivered.id} of webhook configuration ${target.id} was delivered; only a dropped or failed delivery can be sent again`,
          },
        },
      });
      const stillQueued = await oscar('POST', `/v2/webhooks/${target.id}/deliveries/${retrying.id}/resend`);
      expect(stillQueued).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } });
      expect((stillQueued.body as { error: { message: string } }).error.message).toContain(
        `delivery ${retrying.id} of webhook configuration ${target.id} is still being delivered`,
      );
      expect(await api().store.deliveries.stats()).toEqual(before);

      const [retried] = await claimAgain(target.id, 1);
      if (retried) await settle(retried, 'delivered');
    });

    it("answers 404 for an unknown delivery, one that is not a delivery id, and another configuration's", async () => {
      const target = await createHook();
      const other = await createHook();
      const [dropped] = await claimed(target, 1);
      if (!dropped) throw new Error('not claimed');
      await settle(dropped, 'dropped', { status: 400 });
      for (const path of [
        `/v2/webhooks/${target.id}/deliveries/${randomUUID()}/resend`,
        `/v2/webhooks/${target.id}/deliveries/not-a-delivery/resend`,
        `/v2/webhooks/${target.id}/deliveries/${dropped.id.toUpperCase()}/resend`,
        `/v2/webhooks/${other.id}/deliveries/${dropped.id}/resend`,
        `/v2/webhooks/${randomUUID()}/deliveries/${dropped.id}/resend`,
      ]) {
        const result = await oscar('POST', path);
        expect(result.status, path).toBe(404);
        expect(result.body, path).toMatchObject({ error: { code: 'NOT_FOUND' } });
      }
      expect(JSON.stringify((await oscar('POST', `/v2/webhooks/${target.id}/deliveries/not-a-delivery/resend`)).body)).not.toContain('not-a-delivery');
      expect((await oscar('POST', `/v2/webhooks/${target.id}/deliveries/a%01b/resend`)).body).toMatchObject({ error: { field: 'deliveryId' } });
    });
  });

  describe('rights', () => {
    it('lets a viewer list the attempt log but not resend (403), which queues nothing', async () => {
      const target = await createHook();
      const [dropped] = await claimed(target, 1);
      if (!dropped) throw new Error('not claimed');
      await settle(dropped, 'dropped', { status: 400 });

      const listed = await vera('GET', `/v2/webhooks/${target.id}/deliveries`);
      expect(listed.status).toBe(200);
      expect((listed.body as Attempt[]).map((x) => x.deliveryId)).toEqual([dropped.id]);
      expect(await vera('POST', `/v2/webhooks/${target.id}/deliveries/${dropped.id}/resend`)).toMatchObject({
        status: 403,
        body: { error: { code: 'FORBIDDEN', message: 'device-overview:manage is needed at company 1' } },
      });
      expect((await api().store.deliveries.stats()).queued).toBe(0);
    });

    it("keeps another company's attempt log and resend out of reach: 404, revealing nothing, changing nothing", async () => {
      const target = await createHook();
      const [dropped] = await claimed(target, 1);
      if (!dropped) throw new Error('not claimed');
      await settle(dropped, 'dropped', { status: 400, responseBody: 'Acme internal detail' });
      for (const [method, path] of [
        ['GET', `/v2/webhooks/${target.id}/deliveries`],
        ['GET', `/v2/webhooks/${target.id}/deliveries?outcome=bogus`],
        ['POST', `/v2/webhooks/${target.id}/deliveries/${dropped.id}/resend`],
      ] as const) {
        const result = await bjorn(method, path);
        expect(result.status, `${method} ${path}`).toBe(404);
        expect(JSON.stringify(result.body)).not.toContain('Acme');
      }
      expect((await api().store.deliveries.stats()).queued).toBe(0);
    });
  });
});
