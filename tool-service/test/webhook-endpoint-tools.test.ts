// The endpoint tools end to end: a real dev platform, a real webhook API on SQLite, a real receiver
// and the tool service on loopback, called with delegated tokens from a real token exchange.
import { startPlatform } from '@platform/dev-platform/testing';
import { startedForTests } from '@platform/tool-sdk/testing';
import { startedApiForTests, startReceiver, type Receiver } from '@platform/webhook-api/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallAnswer } from '@platform/tool-sdk/testing';
import { delegatedCalls, startedToolServiceForTests, startToolService, type RunningToolService } from './harness.ts';

const platform = startedForTests(() => startPlatform());
const api = startedApiForTests('SQLite', () => platform().issuer);
const tools = startedToolServiceForTests(() => ({ platformUrl: platform().issuer, webhookApiUrl: api().url }));
const { tokens, call, result } = delegatedCalls(() => platform().issuer, tools);

interface Status {
  id: string;
  status: string;
  disabledReason: string | null;
  disabledAt: string | null;
}

async function createdWebhook(url = 'https://receiver.example/hook'): Promise<string> {
  const { webhook } = await result<{ webhook: { id: string } }>('create_webhook', { companyId: 1, name: 'Boiler feed', url, deliveryMode: 'Realtime' });
  return webhook.id;
}

describe('the endpoint tools', () => {
  it('are offered with the permission each needs and honest hints', async () => {
    const byName = Object.fromEntries((await tools().client.list()).map((tool) => [tool.name, tool]));
    expect(byName.get_webhook_status).toMatchObject({ requiresPermission: 'device-overview:view', readOnlyHint: true });
    expect(byName.set_webhook_delivery_options).toMatchObject({ requiresPermission: 'device-overview:manage', readOnlyHint: false, idempotentHint: true });
    expect(byName.send_test_delivery).toMatchObject({ requiresPermission: 'device-overview:manage', readOnlyHint: false, idempotentHint: false });
    expect(byName.set_webhook_status).toMatchObject({
      requiresPermission: 'device-overview:manage',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
  });

  it('show a webhook’s status, disable it and enable it again, keeping its other fields', async () => {
    const webhookConfigId = await createdWebhook();
    expect((await result<{ webhook: Status }>('get_webhook_status', { webhookConfigId })).webhook).toMatchObject({
      id: webhookConfigId,
      status: 'Active',
      disabledReason: null,
      disabledAt: null,
    });
    const disabled = (await result<{ webhook: Status }>('set_webhook_status', { webhookConfigId, status: 'Disabled' })).webhook;
    expect(disabled).toMatchObject({ status: 'Disabled', disabledReason: 'disabled by a manager (PUT with status Disabled)' });
    expect(disabled.disabledAt).toMatch(/^\d{4}-/);
    expect((await api().store.getConfig(webhookConfigId))?.status).toBe('Disabled');
    const enabled = (await result<{ webhook: Status }>('set_webhook_status', { webhookConfigId, status: 'Active' })).webhook;
    expect(enabled).toMatchObject({ status: 'Active', disabledReason: null, disabledAt: null });
    expect((await result<{ webhook: { name: string; url: string } }>('get_webhook', { webhookConfigId })).webhook).toMatchObject({
      name: 'Boiler feed',
      url: 'https://receiver.example/hook',
    });
  });

  it('set and remove a rate limit, set ordering per device, keeping the other fields, and refuse what is out of bounds', async () => {
    const webhookConfigId = await createdWebhook();
    const limited = (
      await result<{ webhook: { rateLimitPerSecond: number | null } }>('set_webhook_delivery_options', { webhookConfigId, rateLimitPerSecond: 20 })
    ).webhook;
    expect(limited.rateLimitPerSecond).toBe(20);
    expect((await api().store.getConfig(webhookConfigId))?.rateLimitPerSecond).toBe(20);
    expect((await result<{ webhook: { rateLimitPerSecond: number | null } }>('get_webhook_status', { webhookConfigId })).webhook.rateLimitPerSecond).toBe(20);
    expect(
      (await result<{ webhook: { rateLimitPerSecond: number | null } }>('set_webhook_delivery_options', { webhookConfigId })).webhook.rateLimitPerSecond,
    ).toBe(20);
    expect(
      (await result<{ webhook: { rateLimitPerSecond: number | null } }>('set_webhook_delivery_options', { webhookConfigId, rateLimitPerSecond: null })).webhook
        .rateLimitPerSecond,
    ).toBeNull();
    expect(await call('set_webhook_delivery_options', { webhookConfigId, rateLimitPerSecond: 0 })).toMatchObject({ ok: false, codeName: 'INVALID_ARGUMENT' });
    const ordered = (
      await result<{ webhook: { ordering: string; rateLimitPerSecond: number | null } }>('set_webhook_delivery_options', {
        webhookConfigId,
        ordering: 'PerDevice',
      })
    ).webhook;
    expect(ordered).toMatchObject({ ordering: 'PerDevice', rateLimitPerSecond: null });
    expect((await api().store.getConfig(webhookConfigId))?.ordering).toBe('PerDevice');
    expect(await call('set_webhook_delivery_options', { webhookConfigId, ordering: 'PerGateway' })).toMatchObject({ ok: false, codeName: 'INVALID_ARGUMENT' });
    expect((await api().store.getConfig(webhookConfigId))?.name).toBe('Boiler feed');
  });

  it('let a viewer read the status but not change it', async () => {
    const webhookConfigId = await createdWebhook();
    expect((await result<{ webhook: Status }>('get_webhook_status', { webhookConfigId }, tokens.vera)).webhook.status).toBe('Active');
    expect(await call('set_webhook_status', { webhookConfigId, status: 'Disabled' }, tokens.vera)).toMatchObject({ ok: false, codeName: 'PERMISSION_DENIED' });
    expect((await api().store.getConfig(webhookConfigId))?.status).toBe('Active');
  });

  it('refuse a status that is neither Active nor Disabled before calling the API', async () => {
    const webhookConfigId = await createdWebhook();
    expect(await call('set_webhook_status', { webhookConfigId, status: 'Paused' })).toMatchObject({ ok: false, codeName: 'INVALID_ARGUMENT' });
  });

  describe('send_test_delivery', () => {
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver({ respond: (request) => (request.path === '/broken' ? { status: 500 } : { status: 200 }) });
    });
    afterAll(async () => {
      await receiver.close();
    });

    it('sends one sample point to the endpoint now and says what came of it, also for a disabled webhook', async () => {
      const webhookConfigId = await createdWebhook(`${receiver.url}/fine`);
      await result('set_webhook_status', { webhookConfigId, status: 'Disabled' });
      const sent = await result<{ delivered: boolean; status: number; error: string | null; deliveryId: string; webhookId: string }>('send_test_delivery', {
        webhookConfigId,
      });
      expect(sent).toMatchObject({ delivered: true, status: 200, error: null, webhookId: expect.stringMatching(/^msg_/) as unknown });
      const [request] = receiver.received.filter((r) => r.path === '/fine');
      expect(request?.json).toMatchObject({ Point: { Measurement: 'webhook-test' } });
      expect(request?.headers['webhook-id']).toBe(sent.webhookId);
      const log = await result<{ deliveries: { deliveryId: string; test: boolean }[] }>('list_deliveries', { webhookConfigId });
      expect(log.deliveries.map((d) => [d.deliveryId, d.test])).toEqual([[sent.deliveryId, true]]);
    });

    it('says why a broken endpoint did not take it', async () => {
      const webhookConfigId = await createdWebhook(`${receiver.url}/broken`);
      expect(await result('send_test_delivery', { webhookConfigId })).toMatchObject({ delivered: false, status: 500, error: 'the endpoint answered 500' });
    });

    it('is refused to a viewer, and nothing is sent', async () => {
      const webhookConfigId = await createdWebhook(`${receiver.url}/viewer`);
      expect(await call('send_test_delivery', { webhookConfigId }, tokens.vera)).toMatchObject({ ok: false, codeName: 'PERMISSION_DENIED' });
      expect(receiver.received.filter((r) => r.path === '/viewer')).toEqual([]);
    });
  });
});

describe('rotate_signing_secret', () => {
  interface Rotated {
    rotated: boolean;
    webhookConfigId: string;
    previousSecretSignsUntil: string;
    readSecretAt: string;
    message: string;
  }

  it('rotates the secret, says where a person reads it and until when the old one signs, and never holds the secret', async () => {
    const webhookConfigId = await createdWebhook();
    const oscar = await api().clientAs('oscar');
    const secretOf = async () => ((await oscar('GET', `/v2/webhooks/${webhookConfigId}/signing-secret`)).body as { secret: string }).secret;
    const before = await secretOf();
    const answer = await call('rotate_signing_secret', { webhookConfigId });
    expect(answer).toMatchObject({ ok: true, isError: false });
    const { result: rotated, text } = answer as Extract<CallAnswer, { ok: true }>;
    const readSecretAt = `${api().url}/v2/webhooks/${webhookConfigId}/signing-secret`;
    expect(rotated).toEqual({
      rotated: true,
      webhookConfigId,
      previousSecretSignsUntil: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      readSecretAt,
      message: expect.stringContaining(`was rotated. A person with the manage right reads the new secret with GET ${readSecretAt}`) as unknown,
    });
    expect(Date.parse((rotated as Rotated).previousSecretSignsUntil) - Date.now()).toBeGreaterThan(23 * 3600_000);
    const after = await secretOf();
    expect(after).not.toBe(before);
    // The new secret is read by a person at the REST API: not in the answer, its text, or any log.
    for (const place of [JSON.stringify(rotated), text, tools().logs.join('\n'), api().logs.join('\n')]) {
      expect(place).not.toContain(after.slice(6));
      expect(place).not.toContain(before.slice(6));
    }
  });

  it('answers a second rotation within 24 hours with the REST API’s CONFLICT, saying from when it may happen', async () => {
    const webhookConfigId = await createdWebhook();
    const first = (await result<Rotated>('rotate_signing_secret', { webhookConfigId })).previousSecretSignsUntil;
    const again = await call('rotate_signing_secret', { webhookConfigId });
    expect(again).toMatchObject({
      ok: true,
      isError: true,
      result: { code: 'CONFLICT', status: 409, message: expect.stringContaining(`it may be rotated again from ${first}`) as unknown },
    });
  });

  it('is refused to a viewer', async () => {
    const webhookConfigId = await createdWebhook();
    expect(await call('rotate_signing_secret', { webhookConfigId }, tokens.vera)).toMatchObject({ ok: false, codeName: 'PERMISSION_DENIED' });
  });
});

describe('the webhook tools where the webhook feature is switched off', () => {
  const disabledApi = startedApiForTests('SQLite', () => platform().issuer, { featureEnabled: false });
  let disabledTools: RunningToolService;
  beforeAll(async () => {
    disabledTools = await startToolService({ platformUrl: platform().issuer, webhookApiUrl: disabledApi().url });
  });
  afterAll(async () => {
    await disabledTools.close();
  });

  it.each([
    ['list_webhooks', { companyId: 1 }],
    ['get_webhook_status', { webhookConfigId: 'a1b2c3' }],
    ['send_test_delivery', { webhookConfigId: 'a1b2c3' }],
  ])('%s tells the agent the feature is not enabled in this environment', async (name, args) => {
    const answer = await disabledTools.client.call(name, args, tokens.oscar);
    expect(answer).toMatchObject({ ok: true, isError: true });
    const { result: body } = answer as Extract<CallAnswer, { ok: true }>;
    expect(body).toMatchObject({
      status: 403,
      message: expect.stringContaining('The webhook feature is not enabled in this environment; no webhook can be configured or delivered here.') as unknown,
    });
  });
});
