// Standard Webhooks end to end: real deliveries to a real receiver, verified with the
// `standardwebhooks` library a receiver would use; the signing secret's endpoints; the webhook-id a
// retry, a retry-now and a resend keep; on SQLite and PostgreSQL.
import { personToken, startPlatform } from '@platform/dev-platform/testing';
import { startedForTests, until } from '@platform/tool-sdk/testing';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createHook, telemetryPoint, type Backend, startedApiForTests } from './harness.ts';
import { deletedAfterEach, peopleForTests } from './people.ts';
import { receiverForTests, type ReceivedRequest } from './receiver.ts';

const platform = startedForTests(() => startPlatform());
/** A device of company 1 (Acme Telemetry) in the dev platform's seed. */
const boiler = 1001;

interface Attempt {
  deliveryId: string;
  webhookId: string;
  attempt: number;
  outcome: string;
  nextAttemptAt: string | null;
}

/** The headers of a received request as a Standard Webhooks library takes them. */
const headersOf = (request: ReceivedRequest | undefined) => Object.fromEntries(Object.entries(request?.headers ?? {}).map(([k, v]) => [k, String(v)]));
const verifies = (secret: string, request: ReceivedRequest | undefined) => new Webhook(secret).verify(request?.body ?? '', headersOf(request));

describe.each<Backend>(['SQLite', 'PostgreSQL'])('signed deliveries on %s', (backend) => {
  // A retry waits a minute: long enough that only POST .../retry can send it sooner in a test.
  const api = startedApiForTests(backend, () => platform().issuer, { deliverer: { retrySchedule: [60_000, 60_000], maxAgeMs: 3_600_000, batchLingerMs: 50 } });
  const receiver = receiverForTests();
  const { oscar, vera, bjorn } = peopleForTests(api);
  const made = deletedAfterEach(oscar);

  /** A configuration of company 1 routing everything of the boiler to its own path of the receiver. */
  async function hook(path: string, fields: Record<string, unknown> = {}): Promise<string> {
    const id = await createHook(oscar, receiver().url, path, { fields, devices: [boiler] });
    made.push(id);
    return id;
  }
  const at = (path: string) => receiver().received.filter((r) => r.path === `/${path}`);
  async function secretOf(id: string): Promise<string> {
    const answer = await oscar('GET', `/v2/webhooks/${id}/signing-secret`);
    expect(answer.status).toBe(200);
    return (answer.body as { secret: string }).secret;
  }
  const attempts = async (id: string) => (await oscar('GET', `/v2/webhooks/${id}/deliveries`)).body as Attempt[];
  const ingest = async (...points: Record<string, unknown>[]) => {
    expect((await api().ingest(points)).status).toBe(202);
  };

  it('signs every Realtime delivery: webhook-id, webhook-timestamp in seconds, and a signature the library verifies', async () => {
    const id = await hook('realtime', { includeMetadataHeaders: false, includeRetryHeader: false });
    const secret = await secretOf(id);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const before = Math.floor(Date.now() / 1000);
    await ingest(telemetryPoint(boiler), telemetryPoint(boiler, { fields: { value: 22 } }));
    await until(() => at('realtime').length === 2, 'both delivered');
    const [first, second] = at('realtime');
    for (const request of [first, second]) {
      expect(verifies(secret, request)).toEqual(request?.json);
      expect(Number(request?.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(before);
      expect(request?.headers['webhook-id']).toMatch(/^msg_[0-9a-f-]{36}$/);
    }
    // One id per delivery; each is the attempt log's (once the deliverer has written what the attempts came to).
    expect(first?.headers['webhook-id']).not.toBe(second?.headers['webhook-id']);
    await until(async () => (await attempts(id)).length === 2, 'both attempts recorded');
    const logged = (await attempts(id)).map((a) => a.webhookId).sort();
    expect(logged).toEqual([String(first?.headers['webhook-id']), String(second?.headers['webhook-id'])].sort());
    // Another configuration's secret does not verify it.
    const other = await secretOf(await hook('other'));
    expect(() => verifies(other, first)).toThrow(WebhookVerificationError);
  });

  it('signs a Batch request once, with one webhook-id for the whole batch', async () => {
    const id = await hook('batch', { deliveryMode: 'Batch' });
    const secret = await secretOf(id);
    await ingest(telemetryPoint(boiler, { fields: { value: 1 } }), telemetryPoint(boiler, { fields: { value: 2 } }));
    await until(() => at('batch').length === 1, 'the batch delivered');
    const [batch] = at('batch');
    expect((verifies(secret, batch) as { Points: unknown[] }).Points).toHaveLength(2);
    await until(async () => (await attempts(id)).length === 1, 'the attempt recorded');
    expect((await attempts(id)).map((a) => a.webhookId)).toEqual([batch?.headers['webhook-id']]);
  });

  it('keeps the webhook-id on a retry, signed again at its own timestamp, and on POST .../retry, which sends a waiting delivery now', async () => {
    let answered = 0;
    receiver().respond((request) => (request.path === '/retried' && answered++ === 0 ? { status: 503 } : { status: 204 }));
    const id = await hook('retried');
    const secret = await secretOf(id);
    await ingest(telemetryPoint(boiler));
    await until(async () => (await attempts(id)).length === 1, 'the first attempt recorded');
    const [waiting] = await attempts(id);
    // Waiting a minute for its retry: the attempt log says when.
    expect(waiting).toMatchObject({ outcome: 'retrying', attempt: 0 });
    expect(Date.parse(waiting?.nextAttemptAt ?? '') - Date.now()).toBeGreaterThan(30_000);
    const retried = await oscar('POST', `/v2/webhooks/${id}/deliveries/${waiting?.deliveryId}/retry`);
    expect(retried).toMatchObject({ status: 202, body: { deliveryId: waiting?.deliveryId } });
    await until(() => at('retried').length === 2, 'the retry sent at once');
    const [first, second] = at('retried');
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(second?.headers['x-webhook-retry-count']).toBe('1');
    expect(verifies(secret, first)).toBeDefined();
    expect(verifies(secret, second)).toBeDefined();
    await until(async () => (await attempts(id))[0]?.outcome === 'delivered', 'delivered');
    // Once delivered it waits for nothing: 409, and an unknown delivery is 404.
    const again = await oscar('POST', `/v2/webhooks/${id}/deliveries/${waiting?.deliveryId}/retry`);
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } });
    expect((again.body as { error: { message: string } }).error.message).toContain('not waiting for a retry');
    expect((await oscar('POST', `/v2/webhooks/${id}/deliveries/00000000-0000-4000-8000-000000000000/retry`)).status).toBe(404);
  });

  it('keeps the webhook-id on a resend of a dropped delivery', async () => {
    let answered = 0;
    receiver().respond((request) => (request.path === '/resent' && answered++ === 0 ? { status: 400 } : { status: 204 }));
    const id = await hook('resent');
    const secret = await secretOf(id);
    await ingest(telemetryPoint(boiler));
    await until(async () => (await attempts(id))[0]?.outcome === 'dropped', 'dropped');
    const [dropped] = await attempts(id);
    const resent = await oscar('POST', `/v2/webhooks/${id}/deliveries/${dropped?.deliveryId}/resend`);
    expect(resent.status).toBe(202);
    await until(() => at('resent').length === 2, 'resent');
    const [first, second] = at('resent');
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(verifies(secret, second)).toEqual(second?.json);
    const log = await attempts(id);
    expect(log[0]).toMatchObject({ deliveryId: (resent.body as { deliveryId: string }).deliveryId, webhookId: dropped?.webhookId, outcome: 'delivered' });
  });

  it('rotates the secret: deliveries carry a signature by the old and by the new one, each verifying on its own', async () => {
    const id = await hook('rotated');
    const old = await secretOf(id);
    const rotated = await oscar('POST', `/v2/webhooks/${id}/signing-secret/rotate`);
    expect(rotated.status).toBe(200);
    const { secret } = rotated.body as { secret: string };
    expect(secret).not.toBe(old);
    expect(await secretOf(id)).toBe(secret);
    await ingest(telemetryPoint(boiler));
    await until(() => at('rotated').length === 1, 'delivered');
    const [request] = at('rotated');
    expect(String(request?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(old, request)).toEqual(request?.json);
    expect(verifies(secret, request)).toEqual(request?.json);
  });

  it('refuses a second rotation within the 24 hours, saying from when it may happen, and the first one keeps its grace', async () => {
    const id = await hook('rotated-twice');
    const first = await secretOf(id);
    const before = Date.now();
    const rotated = await oscar('POST', `/v2/webhooks/${id}/signing-secret/rotate`);
    const { secret: second, previousSecretSignsUntil } = rotated.body as { secret: string; previousSecretSignsUntil: string };
    expect(Date.parse(previousSecretSignsUntil) - before).toBeGreaterThanOrEqual(24 * 3600_000 - 5);
    expect(Date.parse(previousSecretSignsUntil) - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    for (let i = 0; i < 2; i += 1) {
      const response = await fetch(`${api().url}/v2/webhooks/${id}/signing-secret/rotate`, {
        method: 'POST',
        headers: { authversion: 'V0.0.1', authorization: `Bearer ${await personToken(platform().issuer, 'oscar')}` },
      });
      expect(response.status).toBe(409);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(24 * 3600 - 60);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('CONFLICT');
      expect(body.error.message).toContain(`it may be rotated again from ${previousSecretSignsUntil}`);
      expect(JSON.stringify(body)).not.toContain(second.slice(6));
    }
    // Nothing changed: the second secret is current, and the first still signs beside it.
    expect(await secretOf(id)).toBe(second);
    await ingest(telemetryPoint(boiler));
    await until(() => at('rotated-twice').length === 1, 'delivered');
    const [request] = at('rotated-twice');
    expect(String(request?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(first, request)).toEqual(request?.json);
    expect(verifies(second, request)).toEqual(request?.json);
    expect(api().logs.join('\n')).not.toContain(second.slice(6));
  });

  it('shows the secret to a manager only, uncached, and never logs it', async () => {
    const id = await hook('secret-rights');
    const response = await fetch(`${api().url}/v2/webhooks/${id}/signing-secret`, {
      headers: { authversion: 'V0.0.1', authorization: `Bearer ${await personToken(platform().issuer, 'oscar')}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const { secret } = (await response.json()) as { secret: string };
    // vera views company 1 (403); bjorn is of another company (404); neither can rotate.
    expect((await vera('GET', `/v2/webhooks/${id}/signing-secret`)).status).toBe(403);
    expect((await vera('POST', `/v2/webhooks/${id}/signing-secret/rotate`)).status).toBe(403);
    expect((await bjorn('GET', `/v2/webhooks/${id}/signing-secret`)).status).toBe(404);
    expect((await bjorn('POST', `/v2/webhooks/${id}/signing-secret/rotate`)).status).toBe(404);
    expect(await secretOf(id)).toBe(secret);
    // Not in the configuration, not in the attempt log, not in the logs.
    expect(JSON.stringify((await oscar('GET', `/v2/webhooks/${id}`)).body)).not.toContain(secret.slice(6));
    expect(api().logs.join('\n')).not.toContain(secret.slice(6));
  });
});
