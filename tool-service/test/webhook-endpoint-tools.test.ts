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
    const webhookId = await createdWebhook();
    expect((await result<{ webhook: Status }>('get_webhook_status', { webhookId })).webhook).toMatchObject({
      id: webhookId,
      status: 'Active',
      disabledReason: null,
      disabledAt: null,
    });
    const disabled = (await result<{ webhook: Status }>('set_webhook_status', { webhookId, status: 'Disabled' })).webhook;
    expect(disabled).toMatchObject({ status: 'Disabled', disabledReason: 'disabled by a manager (PUT with status Disabled)' });
    expect(disabled.disabledAt).toMatch(/^\d{4}-/);
    expect((await api().store.getConfig(webhookId))?.status).toBe('Disabled');
    const enabled = (await result<{ webhook: Status }>('set_webhook_status', { webhookId, status: 'Active' })).webhook;
    expect(enabled).toMatchObject({ status: 'Active', disabledReason: null, disabledAt: null });
    expect((await result<{ webhook: { name: string; url: string } }>('get_webhook', { webhookId })).webhook).toMatchObject({
      name: 'Boiler feed',
      url: 'https://receiver.example/hook',
    });
  });

  it('set and remove a rate limit, set ordering per device, keeping the other fields, and refuse what is out of bounds', async () => {
    const webhookId = await createdWebhook();
    const limited = (await result<{ webhook: { rateLimitPerSecond: number | null } }>('set_webhook_delivery_options', { webhookId, rateLimitPerSecond: 20 }))
      .webhook;
    expect(limited.rateLimitPerSecond).toBe(20);
    expect((await api().store.getConfig(webhookId))?.rateLimitPerSecond).toBe(20);
    expect((await result<{ webhook: { rateLimitPerSecond: number | null } }>('get_webhook_status', { webhookId })).webhook.rateLimitPerSecond).toBe(20);
    expect((await result<{ webhook: { rateLimitPerSecond: number | null } }>('set_webhook_delivery_options', { webhookId })).webhook.rateLimitPerSecond).toBe(
      20,
    );
    expect(
      (await result<{ webhook: { rateLimitPerSecond: number | null } }>('set_webhook_delivery_options', { webhookId, rateLimitPerSecond: null })).webhook
        .rateLimitPerSecond,
    ).toBeNull();
    expect(await call('set_webhook_delivery_options', { webhookId, rateLimitPerSecond: 0 })).toMatchObject({ ok: false, codeName: 'INVALID_ARGUMENT' });
    const ordered = (
      await result<{ webhook: { ordering: string; rateLimitPerSecond: number | null } }>('set_webhook_delivery_options', { webhookId, ordering: 'PerDevice' })
    ).webhook;
    expect(ordered).toMatchObject({ ordering: 'PerDevice', rateLimitPerSecond: null });
    expect((await api().store.getConfig(webhookId))?.ordering).toBe('PerDevice');
    expect(await call('set_webhook_delivery_options', { webhookId, ordering: 'PerGateway' })).toMatchObject({ ok: false, codeName: 'INVALID_ARGUMENT' });
    expect((await api().store.getConfig(webhookId))?.name).toBe('Boiler feed');
  });

  it('let a viewer read the status but not change it', async () => {
    const webhookId = await createdWebhook();
    expect((await result<{ webhook: Status }>('get_webhook_status', { webhookId }, tokens.vera)).webhook.status).toBe('Active');
    expect(await call('set_webhook_status', { webhookId, status: 'Disabled' }, tokens.vera)).toMatchObject({ ok: false, codeName: 'PERMISSION_DENIED' });
    expect((await api().store.getConfig(webhookId))?.status).toBe('Active');
  });

  it('refuse a status that is neither Active nor Disabled before calling the API', async () => {
    const webhookId = await createdWebhook();
    expect(await call('set_webhook_status', { webhookId, status: 'Paused' })).toMatchObject({ ok: false, codeName: 'INVALID_ARGUMENT' });
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
      const webhookId = await createdWebhook(`${receiver.url}/fine`);
      await result('set_webhook_status', { webhookId, status: 'Disabled' });
      const sent = await result<{ delivered: boolean; status: number; error: string | null; deliveryId: string }>('send_test_delivery', { webhookId });
      expect(sent).toMatchObject({ delivered: true, status: 200, error: null });
      expect(receiver.received.filter((r) => r.path === '/fine').map((r) => r.json)).toMatchObject([{ Point: { Measurement: 'webhook-test' } }]);
      const log = await result<{ attempts: { deliveryId: string }[] }>('list_deliveries', { webhookId });
      expect(log.attempts.map((a) => a.deliveryId)).toEqual([sent.deliveryId]);
    });

    it('says why a broken endpoint did not take it', async () => {
      const webhookId = await createdWebhook(`${receiver.url}/broken`);
      expect(await result('send_test_delivery', { webhookId })).toMatchObject({ delivered: false, status: 500, error: 'the endpoint answered 500' });
    });

    it('is refused to a viewer, and nothing is sent', async () => {
      const webhookId = await createdWebhook(`${receiver.url}/viewer`);
      expect(await call('send_test_delivery', { webhookId }, tokens.vera)).toMatchObject({ ok: false, codeName: 'PERMISSION_DENIED' });
      expect(receiver.received.filter((r) => r.path === '/viewer')).toEqual([]);
    });
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
    ['get_webhook_status', { webhookId: 'a1b2c3' }],
    ['send_test_delivery', { webhookId: 'a1b2c3' }],
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
