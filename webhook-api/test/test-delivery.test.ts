// POST /v2/webhooks/{id}/test end to end, on SQLite and PostgreSQL: the real API (no deliverer
// running, so what arrives was sent by the test endpoint itself), a real receiver, verified with the
// Standard Webhooks library a receiver would use.
import { closedPort, startedForTests, until } from '@platform/tool-sdk/testing';
import { personToken, startPlatform } from '@platform/dev-platform/testing';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createHook, startedApiForTests, type Backend } from './harness.ts';
import { deletedAfterEach, peopleForTests } from './people.ts';
import { receiverForTests, type ReceivedRequest } from './receiver.ts';

const platform = startedForTests(() => startPlatform());

interface TestResult {
  delivered: boolean;
  status: number | null;
  durationMs: number;
  error: string | null;
  deliveryId: string;
  webhookId: string;
}
interface Attempt {
  deliveryId: string;
  webhookId: string;
  outcome: string;
  test: boolean;
  responseStatus: number | null;
  error: string | null;
  pointCount: number;
}

const headersOf = (request: ReceivedRequest | undefined) => Object.fromEntries(Object.entries(request?.headers ?? {}).map(([k, v]) => [k, String(v)]));

describe.each<Backend>(['SQLite', 'PostgreSQL'])('test deliveries on %s', (backend) => {
  const api = startedApiForTests(backend, () => platform().issuer);
  const receiver = receiverForTests();
  const { oscar, vera, bjorn } = peopleForTests(api);
  const made = deletedAfterEach(oscar);

  async function hook(path: string, fields: Record<string, unknown> = {}): Promise<string> {
    const id = await createHook(oscar, receiver().url, path, { fields });
    made.push(id);
    return id;
  }
  const at = (path: string) => receiver().received.filter((r) => r.path === `/${path}`);
  const attempts = async (id: string) => (await oscar('GET', `/v2/webhooks/${id}/deliveries`)).body as Attempt[];

  it('sends one request now, as a real delivery goes (method, headers, credentials, a signature under a webhook-id of its own), and says what came of it', async () => {
    const id = await hook('real', {
      method: 'PATCH',
      authType: 'Bearer',
      authPayload: JSON.stringify({ token: 'test-delivery-secret-1' }),
      customHeaders: JSON.stringify({ 'X-Tenant': 'acme' }),
    });
    const { secret } = (await oscar('GET', `/v2/webhooks/${id}/signing-secret`)).body as { secret: string };
    const before = Date.now();
    const answer = await oscar('POST', `/v2/webhooks/${id}/test`);
    expect(answer.status).toBe(200);
    const result = answer.body as TestResult;
    expect(result).toEqual({
      delivered: true,
      status: 204,
      durationMs: expect.any(Number) as unknown,
      error: null,
      deliveryId: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
      webhookId: `msg_${result.deliveryId}`,
    });
    // Done when answered: the request has arrived.
    const [request] = at('real');
    expect(at('real')).toHaveLength(1);
    expect(request?.method).toBe('PATCH');
    expect(request?.headers).toMatchObject({
      authorization: 'Bearer test-delivery-secret-1',
      'x-tenant': 'acme',
      'x-webhook-retry-count': '0',
      'webhook-id': result.webhookId,
      'content-type': 'application/json',
    });
    const envelope = new Webhook(secret).verify(request?.body ?? '', headersOf(request)) as { Metadata: unknown; Point: { UtcTimestamp: string } };
    expect(envelope).toMatchObject({
      Metadata: { Company: '1', GatewayId: 'webhook-test', Measurement: 'webhook-test' },
      Point: { Measurement: 'webhook-test', Fields: { value: 1 }, Tags: { test: 'true' }, DeviceId: 0, ConnectionTag: 'webhook-test' },
    });
    expect(Date.parse(envelope.Point.UtcTimestamp)).toBeGreaterThanOrEqual(before - 5);
    // In the attempt log, marked as a test; it cannot be resent, and nothing was queued.
    expect((await attempts(id))[0]).toMatchObject({
      deliveryId: result.deliveryId,
      webhookId: result.webhookId,
      outcome: 'delivered',
      test: true,
      pointCount: 1,
    });
    const resent = await oscar('POST', `/v2/webhooks/${id}/deliveries/${result.deliveryId}/resend`);
    expect(resent.status).toBe(409);
    expect((resent.body as { error: { message: string } }).error.message).toContain('is a test delivery');
    expect((await api().store.deliveries.stats()).queued).toBe(0);
    expect(api().logs.join('\n')).not.toContain('test-delivery-secret-1');
  });

  it('groups the sample point as a batch of one for a Batch configuration', async () => {
    const id = await hook('batch', { deliveryMode: 'Batch' });
    expect(((await oscar('POST', `/v2/webhooks/${id}/test`)).body as TestResult).delivered).toBe(true);
    expect(at('batch')[0]?.json).toMatchObject({ Points: [{ Measurement: 'webhook-test' }] });
  });

  it('reports an endpoint that fails, without retrying: a 503 and a refused connection', async () => {
    receiver().respond(() => ({ status: 503, body: 'down for maintenance' }));
    const id = await hook('failing');
    const failed = (await oscar('POST', `/v2/webhooks/${id}/test`)).body as TestResult;
    expect(failed).toMatchObject({ delivered: false, status: 503, error: 'the endpoint answered 503' });
    expect((await attempts(id))[0]).toMatchObject({ outcome: 'failed', test: true, responseStatus: 503 });
    expect(at('failing')).toHaveLength(1);

    const port = await closedPort();
    const refusedId = await hook('refused', { url: `http://127.0.0.1:${port}/hook` });
    const refused = (await oscar('POST', `/v2/webhooks/${refusedId}/test`)).body as TestResult;
    expect(refused).toMatchObject({ delivered: false, status: null, error: expect.stringContaining('ECONNREFUSED') as unknown });
    expect((await api().store.deliveries.stats()).queued).toBe(0);
  });

  it('takes at most 2 tests under way at once for a configuration: a third is 429 with Retry-After, and one more goes once they answered', async () => {
    receiver().respond(() => ({ status: 204, delayMs: 1_500 }));
    const id = await hook('slow');
    const authorization = `Bearer ${await personToken(platform().issuer, 'oscar')}`;
    const under = [oscar('POST', `/v2/webhooks/${id}/test`), oscar('POST', `/v2/webhooks/${id}/test`)];
    // The endpoint holds each answer 1.5 s: the third is sent while both are under way.
    await until(() => at('slow').length === 2, 'both tests reached the endpoint');
    const third = await fetch(`${api().url}/v2/webhooks/${id}/test`, { method: 'POST', headers: { authversion: 'V0.0.1', authorization } });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(await third.json()).toEqual({
      error: {
        code: 'TOO_MANY_REQUESTS',
        message: `webhook configuration ${id} has 2 test deliveries under way, the most it may; try again once one has answered`,
      },
    });
    expect((await Promise.all(under)).map((answer) => (answer.body as TestResult).delivered)).toEqual([true, true]);
    expect(((await oscar('POST', `/v2/webhooks/${id}/test`)).body as TestResult).delivered).toBe(true);
    // The refused one was never sent nor recorded.
    expect(at('slow')).toHaveLength(3);
    expect(await attempts(id)).toHaveLength(3);
  });

  it('takes at most 8 tests under way at once for a company, whichever configurations they go to', async () => {
    receiver().respond(() => ({ status: 204, delayMs: 1_500 }));
    const ids = await Promise.all(['c1', 'c2', 'c3', 'c4', 'c5'].map((path) => hook(path)));
    const under = ids.slice(0, 4).flatMap((id) => [oscar('POST', `/v2/webhooks/${id}/test`), oscar('POST', `/v2/webhooks/${id}/test`)]);
    await until(() => receiver().received.filter((r) => /^\/c[1-4]$/.test(r.path)).length === 8, 'eight tests reached the endpoint');
    const ninth = await oscar('POST', `/v2/webhooks/${ids[4] ?? ''}/test`);
    expect(ninth).toEqual({
      status: 429,
      body: { error: { code: 'TOO_MANY_REQUESTS', message: 'company 1 has 8 test deliveries under way, the most it may; try again once one has answered' } },
    });
    expect((await Promise.all(under)).every((answer) => (answer.body as TestResult).delivered)).toBe(true);
    expect(((await oscar('POST', `/v2/webhooks/${ids[4] ?? ''}/test`)).body as TestResult).delivered).toBe(true);
  });

  it('goes to a disabled configuration too, which stays disabled', async () => {
    const id = await hook('disabled');
    expect(
      (await oscar('PUT', `/v2/webhooks/${id}`, { name: 'disabled', url: `${receiver().url}/disabled`, deliveryMode: 'Realtime', status: 'Disabled' })).status,
    ).toBe(200);
    expect(((await oscar('POST', `/v2/webhooks/${id}/test`)).body as TestResult).delivered).toBe(true);
    expect(at('disabled')).toHaveLength(1);
    expect(((await oscar('GET', `/v2/webhooks/${id}`)).body as { status: string }).status).toBe('Disabled');
  });

  it('needs the Manage right: a viewer gets 403 and another company’s manager 404, and nothing is sent', async () => {
    const id = await hook('rights');
    expect((await vera('POST', `/v2/webhooks/${id}/test`)).status).toBe(403);
    expect((await bjorn('POST', `/v2/webhooks/${id}/test`)).status).toBe(404);
    expect((await oscar('POST', '/v2/webhooks/00000000-0000-4000-8000-000000000000/test')).status).toBe(404);
    expect(at('rights')).toHaveLength(0);
    expect(await attempts(id)).toEqual([]);
  });
});
