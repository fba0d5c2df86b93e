// The webhook tools end to end: a real dev platform, a real webhook API on SQLite and the tool
// service on loopback, called over gRPC the way the gateway calls it, with delegated tokens from
// a real token exchange.
import { delegatedToken, startPlatform } from '@platform/dev-platform/testing';
import { startedForTests, type CallAnswer } from '@platform/shared/testing';
import { startedApiForTests } from '@platform/webhook-api/test/harness.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { startedToolServiceForTests } from './harness.ts';

const platform = startedForTests(() => startPlatform());
const api = startedApiForTests('SQLite', () => platform().issuer);
const tools = startedToolServiceForTests(() => ({ platformUrl: platform().issuer, webhookApiUrl: api().url }));

const hook = { companyId: 1, name: 'Boiler feed', url: 'https://receiver.example/hook', deliveryMode: 'Realtime' };

let oscar: string;
beforeAll(async () => {
  oscar = await delegatedToken(platform().issuer, 'oscar');
});

const call = (name: string, args: unknown, token = oscar) => tools().client.call(name, args, token);

/** The result of a call that succeeded. */
async function result<T = Record<string, unknown>>(name: string, args: unknown, token = oscar): Promise<T> {
  const answer = await call(name, args, token);
  expect(answer).toMatchObject({ ok: true, isError: false });
  return (answer as Extract<CallAnswer, { ok: true }>).result as T;
}

/** The tool error (OK with is_error) a call answered: `{ code, message, status, ... }`. */
async function toolError(name: string, args: unknown, token = oscar): Promise<{ code: string; message: string; status?: number; field?: string }> {
  const answer = await call(name, args, token);
  expect(answer).toMatchObject({ ok: true, isError: true });
  const { result: body, text } = answer as Extract<CallAnswer, { ok: true }>;
  expect(text).toBe((body as { message: string }).message);
  return body as { code: string; message: string; status?: number; field?: string };
}

async function createdWebhook(args: Record<string, unknown> = {}): Promise<{ id: string } & Record<string, unknown>> {
  return (await result<{ webhook: { id: string } }>('create_webhook', { ...hook, ...args })).webhook;
}

describe('the webhook tools', () => {
  it('takes a webhook through its whole life: create, get, list, update, link, scopes, unlink, delete', async () => {
    const created = await createdWebhook({ method: 'PUT', customHeaders: { 'X-Team': 'boilers' } });
    expect(created).toEqual({
      id: expect.any(String) as unknown,
      companyId: 1,
      name: 'Boiler feed',
      url: 'https://receiver.example/hook',
      method: 'PUT',
      deliveryMode: 'Realtime',
      authType: 'None',
      customHeaders: JSON.stringify({ 'X-Team': 'boilers' }),
      includeMetadataHeaders: true,
      includeRetryHeader: true,
    });
    const webhookId = created.id;

    expect(await result('get_webhook', { webhookId })).toEqual({ webhook: created });
    const { webhooks } = await result<{ webhooks: { id: string }[] }>('list_webhooks', { companyId: 1 });
    expect(webhooks).toContainEqual(created);

    const updated = await result('update_webhook', { webhookId, name: 'Boiler feed v2', deliveryMode: 'Batch', customHeaders: null });
    expect(updated).toEqual({ webhook: { ...created, name: 'Boiler feed v2', deliveryMode: 'Batch', customHeaders: null } });

    const { link } = await result<{ link: Record<string, unknown> }>('link_device', { webhookId, deviceId: 1001 });
    expect(link).toEqual({ deviceId: 1001, webhookConfigId: webhookId, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown });

    const onLink = { webhookId, deviceId: 1001 };
    const { scope } = await result<{ scope: { id: string } }>('add_scope', { ...onLink, scopeLevel: 'Connection', connectionTag: 'modbus-1' });
    expect(scope).toEqual({ id: expect.any(String) as unknown, scopeLevel: 'Connection', connectionTag: 'modbus-1', measurement: null, enabled: true });
    const scopeId = scope.id;
    expect(await result('list_scopes', onLink)).toEqual({ scopes: [scope] });

    expect(await result('disable_scope', { ...onLink, scopeId })).toEqual({ scope: { ...scope, enabled: false } });
    expect(await result('list_scopes', onLink)).toEqual({ scopes: [{ ...scope, enabled: false }] });
    expect(await result('enable_scope', { ...onLink, scopeId })).toEqual({ scope: { ...scope, enabled: true } });

    const measured = { ...scope, scopeLevel: 'Measurement', connectionTag: 'modbus-1', measurement: 'temperature', enabled: true };
    expect(await result('update_scope', { ...onLink, scopeId, scopeLevel: 'Measurement', connectionTag: 'modbus-1', measurement: 'temperature' })).toEqual({
      scope: measured,
    });
    // enabled, when not given, keeps what the scope had.
    await result('disable_scope', { ...onLink, scopeId });
    expect(await result('update_scope', { ...onLink, scopeId, scopeLevel: 'Connection', connectionTag: 'modbus-2' })).toEqual({
      scope: { ...scope, connectionTag: 'modbus-2', enabled: false },
    });

    expect(await result('remove_scope', { ...onLink, scopeId })).toEqual({ removed: true, scopeId });
    expect(await result('list_scopes', onLink)).toEqual({ scopes: [] });

    expect(await result('list_linked_devices', { webhookId })).toEqual({ links: [link] });
    expect(await result('unlink_device', onLink)).toEqual({ unlinked: true, webhookId, deviceId: 1001 });
    expect(await result('list_linked_devices', { webhookId })).toEqual({ links: [] });

    expect(await result('delete_webhook', { webhookId })).toEqual({ deleted: true, webhookId });
    expect((await toolError('get_webhook', { webhookId })).status).toBe(404);
  });
});
