// The webhook tools end to end: a real dev platform, a real webhook API on SQLite and the tool
// service on loopback, called over gRPC the way the gateway calls it, with delegated tokens from
// a real token exchange.
import { randomUUID } from 'node:crypto';
import { personToken, startPlatform } from '@platform/dev-platform/testing';
import { closedPort, listen, startedForTests, type CallAnswer } from '@platform/tool-sdk/testing';
import { apiClient, startedApiForTests } from '@platform/webhook-api/testing';
import { describe, expect, it } from 'vitest';
import { delegatedCalls, startedToolServiceForTests, startToolService } from './harness.ts';

const platform = startedForTests(() => startPlatform());
const api = startedApiForTests('SQLite', () => platform().issuer);
const tools = startedToolServiceForTests(() => ({ platformUrl: platform().issuer, webhookApiUrl: api().url }));
const { tokens, call, result } = delegatedCalls(() => platform().issuer, tools);

const hook = { companyId: 1, name: 'Boiler feed', url: 'https://receiver.example/hook', deliveryMode: 'Realtime' };
const secret = 'secret-xyz';

interface ToolErrorBody {
  code: string;
  message: string;
  status?: number;
  field?: string;
}

/** The tool error (OK with is_error) a call answered, `{ code, message, status, field? }`; its text is the message. */
async function toolError(name: string, args: unknown, token = tokens.oscar): Promise<ToolErrorBody> {
  const answer = await call(name, args, token);
  expect(answer).toMatchObject({ ok: true, isError: true });
  const { result: body, text } = answer as Extract<CallAnswer, { ok: true }>;
  expect(text).toBe((body as ToolErrorBody).message);
  return body as ToolErrorBody;
}

async function createdWebhook(args: Record<string, unknown> = {}): Promise<{ id: string } & Record<string, unknown>> {
  return (await result<{ webhook: { id: string } }>('create_webhook', { ...hook, ...args })).webhook;
}

describe('the webhook tools', () => {
  it('offers every tool with the permission it needs and honest hints', async () => {
    const listing = await tools().client.list();
    const byName = Object.fromEntries(listing.map((tool) => [tool.name, tool]));
    const view = ['list_webhooks', 'get_webhook', 'get_webhook_status', 'list_linked_devices', 'list_scopes', 'list_devices', 'list_deliveries'];
    const manage = [
      'create_webhook',
      'update_webhook',
      'delete_webhook',
      'link_device',
      'unlink_device',
      'retry_delivery',
      'resend_delivery',
      'resend_failed_deliveries',
      'set_webhook_status',
      'send_test_delivery',
      'set_webhook_delivery_options',
      'rotate_signing_secret',
    ];
    const scopes = ['add_scope', 'update_scope', 'enable_scope', 'disable_scope', 'remove_scope'];
    expect(Object.keys(byName).sort()).toEqual([...view, ...manage, ...scopes, 'whoami', 'list_companies', 'app_info'].sort());
    for (const name of view) expect(byName[name]).toMatchObject({ requiresPermission: 'device-overview:view', readOnlyHint: true, destructiveHint: false });
    for (const name of [...manage, ...scopes]) expect(byName[name]).toMatchObject({ requiresPermission: 'device-overview:manage', readOnlyHint: false });
    // Destructive: what they change or remove is not kept; the others only add, or toggle.
    for (const name of ['delete_webhook', 'unlink_device', 'remove_scope', 'update_webhook', 'update_scope'])
      expect(byName[name]?.destructiveHint, name).toBe(true);
    for (const name of ['create_webhook', 'link_device', 'add_scope', 'enable_scope', 'disable_scope', 'retry_delivery', 'resend_delivery'])
      expect(byName[name]?.destructiveHint, name).toBe(false);
    expect(listing.filter((tool) => !tool.readOnlyHint && !tool.idempotentHint).map((tool) => tool.name)).toEqual([
      'create_webhook',
      'resend_delivery',
      'send_test_delivery',
      'rotate_signing_secret',
    ]);
    for (const name of ['whoami', 'list_companies', 'app_info']) expect(byName[name]).toMatchObject({ requiresPermission: '', readOnlyHint: true });
    for (const tool of listing) {
      expect(tool.description.length).toBeGreaterThan(40);
      expect(JSON.parse(tool.inputSchemaJson)).toMatchObject({ type: 'object', additionalProperties: false });
      expect(JSON.parse(tool.outputSchemaJson)).toMatchObject({ type: 'object' });
    }
  });

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
    const webhookConfigId = created.id;

    expect(await result('get_webhook', { webhookConfigId })).toEqual({ webhook: created });
    const { webhooks } = await result<{ webhooks: { id: string }[] }>('list_webhooks', { companyId: 1 });
    expect(webhooks).toContainEqual(created);

    // Only the fields given change; customHeaders null removes the headers.
    const updated = await result('update_webhook', { webhookConfigId, name: 'Boiler feed v2', deliveryMode: 'Batch', customHeaders: null });
    expect(updated).toEqual({ webhook: { ...created, name: 'Boiler feed v2', deliveryMode: 'Batch', customHeaders: null } });
    expect(await result('update_webhook', { webhookConfigId, includeRetryHeader: false })).toEqual({
      webhook: { ...created, name: 'Boiler feed v2', deliveryMode: 'Batch', customHeaders: null, includeRetryHeader: false },
    });

    const { link } = await result<{ link: Record<string, unknown> }>('link_device', { webhookConfigId, deviceId: 1001 });
    expect(link).toEqual({ deviceId: 1001, webhookConfigId: webhookConfigId, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown });

    const onLink = { webhookConfigId, deviceId: 1001 };
    const { scope } = await result<{ scope: { id: string } }>('add_scope', { ...onLink, scopeLevel: 'Connection', connectionTag: 'modbus-1' });
    expect(scope).toEqual({ id: expect.any(String) as unknown, scopeLevel: 'Connection', connectionTag: 'modbus-1', measurement: null, enabled: true });
    const scopeId = scope.id;
    expect(await result('list_scopes', onLink)).toEqual({ scopes: [scope] });

    expect(await result('disable_scope', { ...onLink, scopeId })).toEqual({ scope: { ...scope, enabled: false } });
    expect(await result('list_scopes', onLink)).toEqual({ scopes: [{ ...scope, enabled: false }] });
    expect(await result('enable_scope', { ...onLink, scopeId })).toEqual({ scope: { ...scope, enabled: true } });
    expect(await result('list_scopes', onLink)).toEqual({ scopes: [scope] });

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

    expect(await result('list_linked_devices', { webhookConfigId })).toEqual({ links: [link] });
    expect(await result('unlink_device', onLink)).toEqual({ unlinked: true, webhookConfigId, deviceId: 1001 });
    expect(await result('list_linked_devices', { webhookConfigId })).toEqual({ links: [] });

    expect(await result('delete_webhook', { webhookConfigId })).toEqual({ deleted: true, webhookConfigId });
    expect((await toolError('get_webhook', { webhookConfigId })).status).toBe(404);
  });

  it('answers an unknown webhook id with a tool error carrying 404 and the API’s message', async () => {
    const unknown = randomUUID();
    for (const [name, args] of [
      ['get_webhook', { webhookConfigId: unknown }],
      ['update_webhook', { webhookConfigId: unknown, name: 'x' }],
      ['delete_webhook', { webhookConfigId: unknown }],
      ['link_device', { webhookConfigId: unknown, deviceId: 1001 }],
      ['list_scopes', { webhookConfigId: unknown, deviceId: 1001 }],
    ] as const) {
      const error = await toolError(name, args);
      expect(error, name).toMatchObject({ code: 'NOT_FOUND', status: 404 });
      expect(error.message, name).toMatch(/^the webhook API answered 404 to \w+ \/v2\/webhooks\/[\w-]+.*: webhook configuration [\w-]+ not found$/);
    }
  });

  it('answers a scope id the link does not have with a 404 tool error, when enabling, disabling or changing it', async () => {
    const { id: webhookConfigId } = await createdWebhook();
    await result('link_device', { webhookConfigId, deviceId: 1002 });
    const missing = { webhookConfigId, deviceId: 1002, scopeId: randomUUID() };
    for (const [name, args] of [
      ['enable_scope', missing],
      ['disable_scope', missing],
      ['update_scope', { ...missing, scopeLevel: 'Device' }],
      ['remove_scope', missing],
    ] as const) {
      expect(await toolError(name, args), name).toMatchObject({ code: 'NOT_FOUND', status: 404, message: expect.stringContaining(missing.scopeId) as unknown });
    }
  });

  it('answers linking a device twice with a 409 tool error', async () => {
    const { id: webhookConfigId } = await createdWebhook();
    await result('link_device', { webhookConfigId, deviceId: 1001 });
    expect(await toolError('link_device', { webhookConfigId, deviceId: 1001 })).toEqual({
      code: 'CONFLICT',
      status: 409,
      message: `the webhook API answered 409 to POST /v2/webhooks/${webhookConfigId}/devices/1001: device 1001 is already linked to webhook configuration ${webhookConfigId}`,
    });
  });

  it('answers a scope that breaks the level rules with a 400 tool error naming the field, and the same scope twice with 409', async () => {
    const { id: webhookConfigId } = await createdWebhook();
    await result('link_device', { webhookConfigId, deviceId: 1001 });
    const onLink = { webhookConfigId, deviceId: 1001 };
    expect(await toolError('add_scope', { ...onLink, scopeLevel: 'Device', connectionTag: 'modbus-1' })).toMatchObject({
      code: 'VALIDATION_FAILED',
      status: 400,
      field: 'connectionTag',
      message: expect.stringMatching(/answered 400 to POST .*: connectionTag: must be empty for scopeLevel Device$/) as unknown,
    });
    expect(await toolError('add_scope', { ...onLink, scopeLevel: 'Measurement', connectionTag: 'modbus-1' })).toMatchObject({
      status: 400,
      field: 'measurement',
    });
    await result('add_scope', { ...onLink, scopeLevel: 'Device' });
    expect(await toolError('add_scope', { ...onLink, scopeLevel: 'Device' })).toMatchObject({ code: 'CONFLICT', status: 409 });
  });

  it('answers a device of another company with a 404 tool error', async () => {
    const { id: webhookConfigId } = await createdWebhook();
    expect(await toolError('link_device', { webhookConfigId, deviceId: 3001 })).toMatchObject({
      status: 404,
      message: expect.stringContaining('device 3001') as unknown,
    });
  });

  it('answers a configuration the API refuses with a 400 tool error naming the field', async () => {
    expect(await toolError('create_webhook', { ...hook, url: 'not a url' })).toMatchObject({ status: 400, field: 'url' });
    expect(await toolError('create_webhook', { ...hook, name: ' ' })).toMatchObject({ status: 400, field: 'name' });
    expect(await toolError('create_webhook', { ...hook, authType: 'Bearer' })).toMatchObject({ status: 400, field: 'authPayload' });
  });

  it('refuses arguments outside the input schema before calling the API, naming the field', async () => {
    for (const [args, field] of [
      [{ webhookConfigId: '../../admin' }, 'webhookConfigId'],
      [{ webhookConfigId: '' }, 'webhookConfigId'],
      [{ webhookConfigId: 'x'.repeat(129) }, 'webhookConfigId'],
      [{ webhookConfigId: 'a', extra: true }, 'extra'],
    ] as const) {
      const answer = await call('get_webhook', args);
      expect(answer).toMatchObject({ ok: false, codeName: 'INVALID_ARGUMENT' });
      expect((answer as { details: string }).details).toContain(field);
    }
    expect(await call('link_device', { webhookConfigId: 'a', deviceId: -1 })).toMatchObject({ ok: false, codeName: 'INVALID_ARGUMENT' });
    expect(await call('list_webhooks', { companyId: '1' })).toMatchObject({ ok: false, codeName: 'INVALID_ARGUMENT' });
  });

  it('refuses credentials nested where only strings belong, and nesting of any depth, never failing inside', async () => {
    const nested = await call('create_webhook', { ...hook, authType: 'Bearer', authPayload: { token: { a: { b: 'c' } } } });
    expect(nested).toMatchObject({ ok: false, codeName: 'INVALID_ARGUMENT', details: expect.stringContaining('authPayload.token') as unknown });
    const deep = `{"companyId":1,"name":"x","url":"https://h.example/in","deliveryMode":"Realtime","authType":"Bearer","authPayload":{"token":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
    expect(await call('create_webhook', deep)).toMatchObject({
      ok: false,
      codeName: 'INVALID_ARGUMENT',
      details: 'arguments_json: nests deeper than 64 levels',
    });
  });

  describe('with narrowed permissions', () => {
    it('lets a viewer read but refuses her managing, before the API is called', async () => {
      const { id: webhookConfigId } = await createdWebhook();
      expect(await result('get_webhook', { webhookConfigId }, tokens.vera)).toMatchObject({ webhook: { id: webhookConfigId } });
      expect(await call('create_webhook', hook, tokens.vera)).toMatchObject({
        ok: false,
        codeName: 'PERMISSION_DENIED',
        details: expect.stringContaining('device-overview:manage is needed at company 1') as unknown,
      });
      expect(await call('delete_webhook', { webhookConfigId }, tokens.vera)).toMatchObject({
        ok: false,
        codeName: 'PERMISSION_DENIED',
        details: expect.stringContaining('device-overview:manage is needed at any company') as unknown,
      });
      expect(await result('get_webhook', { webhookConfigId })).toMatchObject({ webhook: { id: webhookConfigId } });
    });

    it('answers 403 from the API where the app was consented to view only, though the person may manage there', async () => {
      // Oscar manages at company 2 in his own right; the app was only consented device-overview:view there.
      const oscarOwn = apiClient(api().url, `Bearer ${await personToken(platform().issuer, 'oscar')}`);
      const made = await oscarOwn('POST', '/v2/webhooks?companyId=2', { ...hook, companyId: undefined });
      expect(made.status).toBe(201);
      const webhookConfigId = (made.body as { id: string }).id;

      expect(await result('get_webhook', { webhookConfigId })).toMatchObject({ webhook: { id: webhookConfigId, companyId: 2 } });
      expect(await call('create_webhook', { ...hook, companyId: 2 })).toMatchObject({ ok: false, codeName: 'PERMISSION_DENIED' });
      const refused = await toolError('delete_webhook', { webhookConfigId });
      expect(refused).toMatchObject({ code: 'FORBIDDEN', status: 403 });
      expect(refused.message).toMatch(/^the webhook API answered 403 to DELETE \/v2\/webhooks\/[\w-]+: /);
      expect(await toolError('link_device', { webhookConfigId, deviceId: 2001 })).toMatchObject({ status: 403 });
      expect(await result('get_webhook', { webhookConfigId })).toMatchObject({ webhook: { id: webhookConfigId } });
    });

    it('answers a configuration of a company the app is not installed at as not found', async () => {
      const bjornOwn = apiClient(api().url, `Bearer ${await personToken(platform().issuer, 'bjorn')}`);
      const made = await bjornOwn('POST', '/v2/webhooks?companyId=3', { ...hook, companyId: undefined });
      expect(made.status).toBe(201);
      expect(await toolError('get_webhook', { webhookConfigId: (made.body as { id: string }).id })).toMatchObject({ status: 404 });
      expect(await call('list_webhooks', { companyId: 3 })).toMatchObject({ ok: false, codeName: 'PERMISSION_DENIED' });
    });
  });

  describe('credentials', () => {
    it('takes credentials as an object and never shows them in any result or error', async () => {
      const answers: unknown[] = [];
      const keep = async (name: string, args: unknown) => {
        const answer = await call(name, args);
        answers.push(answer);
        return answer as Extract<CallAnswer, { ok: true }>;
      };
      const created = await keep('create_webhook', { ...hook, authType: 'Bearer', authPayload: { token: secret } });
      const webhookConfigId = (created.result as { webhook: { id: string; authType: string } }).webhook.id;
      expect(created.result).toMatchObject({ webhook: { authType: 'Bearer' } });
      expect(created.result).not.toHaveProperty('webhook.authPayload');
      // Stored, encrypted: the credential reached the API as the serialized object it expects.
      const stored = await api().store.getConfig(webhookConfigId);
      expect(JSON.parse(api().vault.decrypt(stored?.authPayloadEncrypted ?? '', webhookConfigId))).toEqual({ token: secret });

      await keep('get_webhook', { webhookConfigId });
      await keep('list_webhooks', { companyId: 1 });
      await keep('update_webhook', { webhookConfigId, name: 'renamed' });
      const stillStored = await api().store.getConfig(webhookConfigId);
      expect(JSON.parse(api().vault.decrypt(stillStored?.authPayloadEncrypted ?? '', webhookConfigId))).toEqual({ token: secret });
      await keep('update_webhook', { webhookConfigId, authType: 'Basic', authPayload: { username: 'ingest', password: `${secret}-2` } });
      const refused = await keep('create_webhook', { ...hook, authType: 'Bearer', authPayload: { wrongKey: secret } });
      expect(refused).toMatchObject({ ok: true, isError: true, result: { status: 400 } });
      await keep('update_webhook', { webhookConfigId, authType: 'None', authPayload: null });
      await expect(api().store.getConfig(webhookConfigId)).resolves.toMatchObject({ authPayloadEncrypted: null });

      expect(answers).toHaveLength(7);
      expect(JSON.stringify(answers)).not.toContain(secret);
      expect(JSON.stringify(answers)).not.toContain(tokens.oscar);
    });
  });

  describe('when the webhook API fails', () => {
    it('answers an unreachable API with an UNAVAILABLE tool error, not a crash', async () => {
      const port = await closedPort();
      const offline = await startToolService({ platformUrl: platform().issuer, webhookApiUrl: `http://127.0.0.1:${port}` });
      try {
        const answer = await offline.client.call('list_webhooks', { companyId: 1 }, tokens.oscar);
        expect(answer).toMatchObject({ ok: true, isError: true, result: { code: 'UNAVAILABLE' } });
        expect((answer as { text: string }).text).toBe('the webhook API could not be reached; try again shortly.');
      } finally {
        await offline.close();
      }
    });

    it('answers a 5xx, an unreadable answer or one of the wrong shape with a tool error, and drops fields beyond the public ones', async () => {
      const config = { ...hook, id: 'c-1', method: 'POST', authType: 'Bearer', customHeaders: null, includeMetadataHeaders: true, includeRetryHeader: true };
      const answers: Record<string, { status: number; body: string }> = {
        '/v2/webhooks/c-1': { status: 200, body: JSON.stringify({ ...config, authPayload: secret }) },
        '/v2/webhooks/down': { status: 503, body: JSON.stringify({ error: { code: 'STORE_UNAVAILABLE', message: 'The webhook store could not be reached' } }) },
        '/v2/webhooks/garbled': { status: 200, body: '{"id": ' },
        '/v2/webhooks/odd': { status: 200, body: JSON.stringify({ id: 7 }) },
        '/v2/webhooks/teapot': { status: 418, body: 'no' },
      };
      const seen: { authVersion: unknown; authorization: unknown }[] = [];
      const fake = await listen((req, res) => {
        seen.push({ authVersion: req.headers.authversion, authorization: req.headers.authorization });
        const answer = answers[req.url ?? ''] ?? { status: 404, body: '{}' };
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
      const service = await startToolService({ platformUrl: platform().issuer, webhookApiUrl: fake.url });
      try {
        const get = (webhookConfigId: string) => service.client.call('get_webhook', { webhookConfigId }, tokens.oscar);
        expect(await get('c-1')).toMatchObject({ ok: true, isError: false, text: '', result: { webhook: { ...config, companyId: 1 } } });
        expect(await get('down')).toMatchObject({
          ok: true,
          isError: true,
          result: {
            code: 'UNAVAILABLE',
            status: 503,
            message: 'the webhook API answered 503 to GET /v2/webhooks/down: The webhook store could not be reached',
          },
        });
        expect(await get('garbled')).toMatchObject({ ok: true, isError: true, result: { code: 'BAD_RESPONSE' } });
        expect(await get('odd')).toMatchObject({ ok: true, isError: true, result: { code: 'BAD_RESPONSE' } });
        expect(await get('teapot')).toMatchObject({ ok: true, isError: true, result: { code: 'HTTP_418', status: 418 } });
        expect(seen).toHaveLength(5);
        expect(new Set(seen.map((headers) => JSON.stringify(headers)))).toEqual(
          new Set([JSON.stringify({ authVersion: 'V0.0.1', authorization: `Bearer ${tokens.oscar}` })]),
        );
      } finally {
        await service.close();
        await fake.close();
      }
    });
  });

  it('never logs the delegated tokens or a credential, in the tool service, the webhook API or the platform', async () => {
    const { id: webhookConfigId } = await createdWebhook({ authType: 'ApiKey', authPayload: { apiKeyValue: `${secret}-logged?` } });
    await result('get_webhook', { webhookConfigId }, tokens.vera);
    await toolError('get_webhook', { webhookConfigId: randomUUID() });
    await call('delete_webhook', { webhookConfigId }, tokens.vera);
    const logs = { 'tool-service': tools().logs, 'webhook-api': api().logs, platform: platform().logs };
    for (const [service, lines] of Object.entries(logs)) {
      expect(lines.length, service).toBeGreaterThan(0);
      const text = lines.join('');
      for (const [what, value] of Object.entries({ oscar: tokens.oscar, vera: tokens.vera, secret }))
        expect(text.includes(value), `${service} logged ${what}`).toBe(false);
    }
    expect(tools().logs.join('')).toContain('"tool":"get_webhook"');
  });

  describe('when the person can be asked (a client that declared elicitation)', () => {
    const asking = { client: { elicitationForm: true } };
    const ask = (name: string, args: unknown, inputResponses?: Record<string, unknown>) =>
      tools().client.call(name, args, tokens.oscar, { ...asking, ...(inputResponses && { inputResponses }) });

    it('delete_webhook asks to confirm, naming the configuration and its linked devices, and deletes only on accept', async () => {
      const { id: webhookConfigId } = await createdWebhook({ name: 'Boiler feed' });
      await result('link_device', { webhookConfigId, deviceId: 1001 });
      const asked = await ask('delete_webhook', { webhookConfigId });
      const [key, question] = Object.entries(asked.ok ? (asked.inputRequired ?? {}) : {})[0] ?? [];
      expect(question?.form?.message).toBe(
        `Delete the webhook "Boiler feed" (https://receiver.example/hook)? Delivery stops at once for its 1 linked device, and this cannot be undone.`,
      );
      expect((await result('get_webhook', { webhookConfigId })).webhook).toBeDefined();

      const declined = await ask('delete_webhook', { webhookConfigId }, { [key ?? '']: { action: 'decline' } });
      expect(declined).toMatchObject({
        ok: true,
        isError: false,
        result: { deleted: false, webhookConfigId, reason: 'the person chose decline; nothing was deleted' },
      });
      expect((await result('get_webhook', { webhookConfigId })).webhook).toBeDefined();

      const accepted = await ask('delete_webhook', { webhookConfigId }, { [key ?? '']: { action: 'accept', content: {} } });
      expect(accepted).toMatchObject({ ok: true, isError: false, result: { deleted: true, webhookConfigId } });
      expect((await toolError('get_webhook', { webhookConfigId })).status).toBe(404);
    });

    it('refuses before asking where the app may not manage, though the person may: nobody confirms what cannot be done', async () => {
      // Oscar manages at company 2 in his own right; the app was only consented device-overview:view there.
      const oscarOwn = apiClient(api().url, `Bearer ${await personToken(platform().issuer, 'oscar')}`);
      const made = await oscarOwn('POST', '/v2/webhooks?companyId=2', { ...hook, companyId: undefined });
      const webhookConfigId = (made.body as { id: string }).id;
      expect((await oscarOwn('POST', `/v2/webhooks/${webhookConfigId}/devices/2001`)).status).toBe(201);
      expect((await oscarOwn('POST', `/v2/webhooks/${webhookConfigId}/devices/2001/routes`, { scopeLevel: 'Device', enabled: true })).status).toBe(201);
      const denied = {
        ok: false,
        codeName: 'PERMISSION_DENIED',
        details: 'device-overview:manage is needed at company 2, and the person and the app do not both hold it there.',
      };
      expect(await ask('delete_webhook', { webhookConfigId })).toMatchObject(denied);
      expect(await ask('unlink_device', { webhookConfigId, deviceId: 2001 })).toMatchObject(denied);
      expect((await oscarOwn('GET', `/v2/webhooks/${webhookConfigId}/devices`)).body).toHaveLength(1);
    });

    it('unlink_device asks to confirm when the link has scopes, naming them, and not when it has none', async () => {
      const { id: webhookConfigId } = await createdWebhook({ name: 'Pump feed' });
      await result('link_device', { webhookConfigId, deviceId: 1001 });
      await result('link_device', { webhookConfigId, deviceId: 1002 });
      await result('add_scope', { webhookConfigId, deviceId: 1001, scopeLevel: 'Device' });
      const asked = await ask('unlink_device', { webhookConfigId, deviceId: 1001 });
      const [key, question] = Object.entries(asked.ok ? (asked.inputRequired ?? {}) : {})[0] ?? [];
      expect(question?.form?.message).toBe(
        'Unlink device 1001 from the webhook "Pump feed"? Its 1 scope (1 forwarding now) go with it, and its data stops flowing to https://receiver.example/hook.',
      );
      expect(await ask('unlink_device', { webhookConfigId, deviceId: 1001 }, { [key ?? '']: { action: 'accept', content: {} } })).toMatchObject({
        ok: true,
        result: { unlinked: true, deviceId: 1001 },
      });
      expect(await ask('unlink_device', { webhookConfigId, deviceId: 1002 })).toMatchObject({
        ok: true,
        inputRequired: undefined,
        result: { unlinked: true, deviceId: 1002 },
      });
    });
  });
});
