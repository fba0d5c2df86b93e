import { delegatedToken, devSecrets, personToken, startPlatform } from '@platform/dev-platform/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closedPort, startedForTests } from '@platform/tool-sdk/testing';
import { apiClient, newStoreLocation, startWebhookApi, type Backend, type RunningApi, type StoreLocation } from './harness.ts';

const platform = startedForTests(() => startPlatform());

const hook = { name: 'Boiler feed', url: 'https://receiver.example/hook', deliveryMode: 'Realtime' };
const bearerPayload = JSON.stringify({ token: 'receiver-secret-token-1' });

describe.each<Backend>(['SQLite', 'PostgreSQL'])('the webhook API on %s', (backend) => {
  let location: StoreLocation;
  let api: RunningApi;
  let oscar: ReturnType<typeof apiClient>;
  let vera: ReturnType<typeof apiClient>;
  let bjorn: ReturnType<typeof apiClient>;
  let oscarToken: string;

  beforeAll(async () => {
    location = await newStoreLocation(backend, inject('postgresUrl'));
    api = await startWebhookApi({ location, platformUrl: platform().issuer });
    oscarToken = await personToken(platform().issuer, 'oscar');
    oscar = apiClient(api.url, `Bearer ${oscarToken}`);
    vera = apiClient(api.url, `Bearer ${await personToken(platform().issuer, 'vera')}`);
    bjorn = apiClient(api.url, `Bearer ${await personToken(platform().issuer, 'bjorn')}`);
  });
  afterAll(async () => {
    await api.close();
  });

  async function createHook(body: Record<string, unknown> = hook, companyId = 1) {
    const created = await oscar('POST', `/v2/webhooks?companyId=${companyId}`, body);
    expect(created.status).toBe(201);
    return created.body as { id: string } & Record<string, unknown>;
  }

  describe('configurations', () => {
    it('creates with the defaults and answers without credentials', async () => {
      const created = await createHook({ ...hook, authType: 'Bearer', authPayload: bearerPayload });
      expect(created).toEqual({
        id: expect.any(String) as unknown,
        companyId: 1,
        name: 'Boiler feed',
        url: 'https://receiver.example/hook',
        method: 'POST',
        deliveryMode: 'Realtime',
        authType: 'Bearer',
        customHeaders: null,
        includeMetadataHeaders: true,
        includeRetryHeader: true,
        status: 'Active',
        disabledReason: null,
        disabledAt: null,
        rateLimitPerSecond: null,
        ordering: 'None',
      });
      expect(JSON.stringify(created)).not.toContain('receiver-secret-token-1');
    });

    it('answers each 201 with a Location that names what was made, which the API then serves', async () => {
      const post = (path: string, body?: unknown) =>
        fetch(`${api.url}${path}`, {
          method: 'POST',
          headers: { authversion: 'V0.0.1', authorization: `Bearer ${oscarToken}`, 'content-type': 'application/json' },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
      const created = await post('/v2/webhooks?companyId=1', hook);
      const { id } = (await created.json()) as { id: string };
      expect(created.headers.get('location')).toBe(`/v2/webhooks/${id}`);
      expect((await oscar('GET', created.headers.get('location') ?? '')).body).toMatchObject({ id });
      const linked = await post(`/v2/webhooks/${id}/devices/1001`);
      expect(linked.status).toBe(201);
      expect(linked.headers.get('location')).toBe(`/v2/webhooks/${id}/devices/1001`);
      const scope = await post(`/v2/webhooks/${id}/devices/1001/routes`, { scopeLevel: 'Device' });
      const { id: routeId } = (await scope.json()) as { id: string };
      expect(scope.headers.get('location')).toBe(`/v2/webhooks/${id}/devices/1001/routes/${routeId}`);
      expect((await oscar('PUT', scope.headers.get('location') ?? '', { scopeLevel: 'Device', enabled: false })).status).toBe(200);
    });

    it('stores credentials encrypted, bound to the configuration', async () => {
      const created = await createHook({ ...hook, authType: 'Basic', authPayload: JSON.stringify({ username: 'ingest', password: 'pa55-word-x' }) });
      const stored = await api.store.getConfig(created.id);
      expect(stored?.authPayloadEncrypted).toMatch(/^v1\.test-1\./);
      expect(stored?.authPayloadEncrypted).not.toContain('pa55-word-x');
      expect(JSON.parse(api.vault.decrypt(stored?.authPayloadEncrypted ?? '', created.id))).toEqual({ username: 'ingest', password: 'pa55-word-x' });
      expect(() => api.vault.decrypt(stored?.authPayloadEncrypted ?? '', 'another-config')).toThrow();
    });

    it('lists, gets, updates and deletes; DELETE answers true', async () => {
      const created = await createHook();
      expect(((await oscar('GET', '/v2/webhooks?companyId=1')).body as { id: string }[]).map((c) => c.id)).toContain(created.id);
      expect((await oscar('GET', `/v2/webhooks/${created.id}`)).body).toEqual(created);
      const updated = await oscar('PUT', `/v2/webhooks/${created.id}`, {
        ...hook,
        name: 'Renamed',
        method: 'PATCH',
        deliveryMode: 'Batch',
        includeRetryHeader: false,
      });
      expect(updated).toMatchObject({
        status: 200,
        body: { name: 'Renamed', method: 'PATCH', deliveryMode: 'Batch', includeRetryHeader: false, includeMetadataHeaders: true },
      });
      expect(await oscar('DELETE', `/v2/webhooks/${created.id}`)).toEqual({ status: 200, body: true });
      expect((await oscar('GET', `/v2/webhooks/${created.id}`)).status).toBe(404);
      expect((await oscar('DELETE', `/v2/webhooks/${created.id}`)).status).toBe(404);
    });

    it('on PUT keeps credentials for null, replaces them for a value and clears them for ""', async () => {
      const created = await createHook({ ...hook, authType: 'Bearer', authPayload: bearerPayload });
      const stored = async () => (await api.store.getConfig(created.id))?.authPayloadEncrypted ?? null;
      const original = await stored();

      expect((await oscar('PUT', `/v2/webhooks/${created.id}`, { ...hook, name: 'kept', authPayload: null })).status).toBe(200);
      expect(await stored()).toBe(original);
      // Omitting authType keeps it too: a rename does not drop the credentials.
      expect((await oscar('PUT', `/v2/webhooks/${created.id}`, { ...hook, name: 'kept again' })).body).toMatchObject({ authType: 'Bearer' });
      expect(await stored()).toBe(original);

      await oscar('PUT', `/v2/webhooks/${created.id}`, { ...hook, authType: 'Bearer', authPayload: JSON.stringify({ token: 'new-token-2' }) });
      expect(JSON.parse(api.vault.decrypt((await stored()) ?? '', created.id))).toEqual({ token: 'new-token-2' });

      const clearWhileBearer = await oscar('PUT', `/v2/webhooks/${created.id}`, { ...hook, authPayload: '' });
      expect(clearWhileBearer).toMatchObject({ status: 400, body: { error: { field: 'authPayload' } } });
      expect((await oscar('PUT', `/v2/webhooks/${created.id}`, { ...hook, authType: 'None', authPayload: '' })).body).toMatchObject({ authType: 'None' });
      expect(await stored()).toBeNull();
    });

    it('needs new credentials when authType changes', async () => {
      const created = await createHook({ ...hook, authType: 'Bearer', authPayload: bearerPayload });
      const result = await oscar('PUT', `/v2/webhooks/${created.id}`, { ...hook, authType: 'ApiKey' });
      expect(result).toMatchObject({
        status: 400,
        body: { error: { code: 'VALIDATION_FAILED', field: 'authPayload', message: 'authPayload: is required when authType changes to ApiKey' } },
      });
    });

    it('keeps everything across a restart', async () => {
      const created = await createHook({ ...hook, authType: 'ApiKey', authPayload: JSON.stringify({ apiKeyValue: 'k-123' }) });
      await oscar('POST', `/v2/webhooks/${created.id}/devices/1001`);
      const restarted = await startWebhookApi({ location, platformUrl: platform().issuer, vault: api.vault });
      try {
        const client = apiClient(restarted.url, `Bearer ${await personToken(platform().issuer, 'oscar')}`);
        expect((await client('GET', `/v2/webhooks/${created.id}`)).body).toEqual(created);
        expect(((await client('GET', `/v2/webhooks/${created.id}/devices`)).body as { deviceId: number }[]).map((l) => l.deviceId)).toEqual([1001]);
      } finally {
        await restarted.close();
      }
    });
  });

  describe('validation', () => {
    it.each([
      ['a missing name', { url: hook.url, deliveryMode: 'Realtime' }, 'name', 'name: is required'],
      ['a missing url', { name: 'x', deliveryMode: 'Realtime' }, 'url', 'url: is required'],
      ['a name over 255 characters', { ...hook, name: 'n'.repeat(256) }, 'name', 'at most 255'],
      ['a url over 2048 characters', { ...hook, url: `https://x.example/${'a'.repeat(2040)}` }, 'url', 'at most 2048'],
      ['a relative url', { ...hook, url: '/hook' }, 'url', 'absolute http or https'],
      ['a non-http url', { ...hook, url: 'ftp://x.example/hook' }, 'url', 'absolute http or https'],
      ['an unknown method', { ...hook, method: 'GET' }, 'method', 'POST, PUT, PATCH'],
      ['an unknown delivery mode', { ...hook, deliveryMode: 'Hourly' }, 'deliveryMode', 'Realtime, Batch'],
      ['an unknown auth type', { ...hook, authType: 'OAuth' }, 'authType', 'None, Bearer'],
      ['a non-boolean flag', { ...hook, includeRetryHeader: 'yes' }, 'includeRetryHeader', 'true or false'],
      ['an unknown field', { ...hook, secretSauce: 1 }, 'secretSauce', 'not a field'],
      ['credentials for authType None', { ...hook, authPayload: bearerPayload }, 'authPayload', 'omitted when authType is None'],
      ['Bearer without credentials', { ...hook, authType: 'Bearer' }, 'authPayload', 'required when authType is Bearer'],
      ['Bearer credentials that are not JSON', { ...hook, authType: 'Bearer', authPayload: 'token=abc' }, 'authPayload', 'not valid JSON'],
      [
        'Bearer credentials with the wrong key',
        { ...hook, authType: 'Bearer', authPayload: '{"apiKeyValue":"x"}' },
        'authPayload',
        'has a key authType Bearer does not take (it takes exactly token)',
      ],
      [
        'ApiKey credentials with an extra key',
        { ...hook, authType: 'ApiKey', authPayload: '{"apiKeyValue":"x","token":"y"}' },
        'authPayload',
        'has a key authType ApiKey does not take (it takes exactly apiKeyValue)',
      ],
      ['Basic without a password', { ...hook, authType: 'Basic', authPayload: '{"username":"u"}' }, 'authPayload', 'password'],
      ['Custom with no headers', { ...hook, authType: 'Custom', authPayload: '{"headers":{}}' }, 'authPayload', 'at least one header'],
      ['Custom setting Host', { ...hook, authType: 'Custom', authPayload: '{"headers":{"Host":"evil"}}' }, 'authPayload', 'Host'],
      ['custom headers that are not an object', { ...hook, customHeaders: '["a"]' }, 'customHeaders', 'JSON object'],
      ['a custom header with a number value', { ...hook, customHeaders: '{"X-Tenant":1}' }, 'customHeaders', 'string'],
      ['a reserved custom header', { ...hook, customHeaders: '{"Content-Type":"text/plain"}' }, 'customHeaders', 'Content-Type'],
      ['a hop-by-hop custom header', { ...hook, customHeaders: '{"Transfer-Encoding":"chunked"}' }, 'customHeaders', 'Transfer-Encoding'],
      ['an X-Webhook-* custom header', { ...hook, customHeaders: '{"X-Webhook-Retry-Count":"9"}' }, 'customHeaders', 'X-Webhook-Retry-Count'],
      [
        'a custom header the auth type sets',
        { ...hook, authType: 'ApiKey', authPayload: '{"apiKeyValue":"k"}', customHeaders: '{"x-api-key":"other"}' },
        'customHeaders',
        'authType',
      ],
      ['a header value with a line break', { ...hook, customHeaders: JSON.stringify({ 'X-Tenant': 'a\r\nX-Evil: 1' }) }, 'customHeaders', 'control characters'],
    ])('answers 400 for %s, naming the field, and stores nothing', async (_case, body, field, message) => {
      const before = await api.store.countConfigs();
      const result = await oscar('POST', '/v2/webhooks?companyId=1', body);
      expect(result.status).toBe(400);
      expect(result.body).toMatchObject({ error: { code: 'VALIDATION_FAILED', field } });
      expect((result.body as { error: { message: string } }).error.message).toContain(message);
      expect(await api.store.countConfigs()).toBe(before);
    });

    it('never quotes an unexpected authPayload key, which may be a credential pasted in the wrong place', async () => {
      const result = await oscar('POST', '/v2/webhooks?companyId=1', { ...hook, authType: 'Bearer', authPayload: '{"S3CRET-VALUE-9":"x","other":"y"}' });
      expect(result).toMatchObject({
        status: 400,
        body: { error: { field: 'authPayload', message: 'authPayload: has 2 keys authType Bearer does not take (it takes exactly token)' } },
      });
      expect(JSON.stringify(result.body)).not.toContain('S3CRET');
    });

    it('answers 400 for malformed JSON, a body that is not an object, and a missing or bad companyId', async () => {
      expect((await oscar('POST', '/v2/webhooks?companyId=1', '{"name":')).body).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'body' } });
      expect((await oscar('POST', '/v2/webhooks?companyId=1', '[1,2]')).status).toBe(400);
      expect((await oscar('POST', '/v2/webhooks', hook)).body).toMatchObject({ error: { field: 'companyId' } });
      expect((await oscar('GET', '/v2/webhooks?companyId=abc')).body).toMatchObject({ error: { field: 'companyId' } });
      // One spelling per company, as a deviceId in a path.
      for (const companyId of ['01', '0', '+1', '1.0', ' 1'])
        expect((await oscar('GET', `/v2/webhooks?companyId=${encodeURIComponent(companyId)}`)).body, companyId).toMatchObject({
          error: { code: 'VALIDATION_FAILED', field: 'companyId' },
        });
    });
  });

  describe('authentication and rights', () => {
    it.each([
      ['missing', undefined],
      ['V0.0.2', 'V0.0.2'],
      ['lower case', 'v0.0.1'],
    ])('answers 401 when AuthVersion is %s', async (_case, version) => {
      const result = await oscar('GET', '/v2/webhooks?companyId=1', undefined, version === undefined ? { authversion: '' } : { authversion: version });
      expect(result).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHENTICATED', field: 'AuthVersion' } } });
    });

    it('answers 401 for a missing, malformed or unknown token', async () => {
      for (const authorization of ['', 'Basic dTpw', 'Bearer not-a-real-token', 'ApiToken unknown-api-token']) {
        expect((await apiClient(api.url, authorization)('GET', '/v2/webhooks?companyId=1')).status).toBe(401);
      }
    });

    it('accepts an ApiToken credential', async () => {
      expect((await apiClient(api.url, `ApiToken ${devSecrets.DEV_API_TOKEN_OSCAR}`)('GET', '/v2/webhooks?companyId=1')).status).toBe(200);
    });

    it('lets a viewer read but not write (403)', async () => {
      const created = await createHook();
      expect((await vera('GET', `/v2/webhooks/${created.id}`)).status).toBe(200);
      expect((await vera('POST', '/v2/webhooks?companyId=1', hook)).body).toMatchObject({ error: { code: 'FORBIDDEN' } });
      expect((await vera('PUT', `/v2/webhooks/${created.id}`, hook)).status).toBe(403);
      expect((await vera('DELETE', `/v2/webhooks/${created.id}`)).status).toBe(403);
      expect((await vera('POST', `/v2/webhooks/${created.id}/devices/1002`)).status).toBe(403);
    });

    it('applies a delegated token’s narrowed permissions: view only at company 2 cannot write', async () => {
      const delegated = apiClient(api.url, `Bearer ${await delegatedToken(platform().issuer, 'oscar')}`);
      expect((await delegated('POST', '/v2/webhooks?companyId=1', hook)).status).toBe(201);
      expect((await delegated('GET', '/v2/webhooks?companyId=2')).status).toBe(200);
      expect((await delegated('POST', '/v2/webhooks?companyId=2', hook)).status).toBe(403);
      // Company 3 is not where the app is installed: not visible at all.
      expect((await delegated('GET', '/v2/webhooks?companyId=3')).status).toBe(404);
    });

    it('restricts the call to the companyView company', async () => {
      const inTwo = await createHook(hook, 2);
      const viewOne = apiClient(api.url, `Bearer ${await personToken(platform().issuer, 'oscar')}`, { companyview: '1' });
      expect((await viewOne('GET', '/v2/webhooks?companyId=1')).status).toBe(200);
      expect((await viewOne('GET', '/v2/webhooks?companyId=2')).status).toBe(404);
      expect((await viewOne('GET', `/v2/webhooks/${inTwo.id}`)).status).toBe(404);
      expect(
        (await apiClient(api.url, `Bearer ${await personToken(platform().issuer, 'oscar')}`, { companyview: 'one' })('GET', '/v2/webhooks?companyId=1')).body,
      ).toMatchObject({ error: { field: 'companyView' } });
      expect(
        (await apiClient(api.url, `Bearer ${await personToken(platform().issuer, 'oscar')}`, { companyview: '3' })('GET', '/v2/webhooks?companyId=1')).status,
      ).toBe(404);
    });

    it('keeps another company’s configurations out of reach: 404 by listing and by guessing ids', async () => {
      const created = await createHook();
      expect((await bjorn('GET', '/v2/webhooks?companyId=1')).status).toBe(404);
      expect((await bjorn('POST', '/v2/webhooks?companyId=1', hook)).status).toBe(404);
      for (const [method, path, body] of [
        ['GET', `/v2/webhooks/${created.id}`, undefined],
        ['PUT', `/v2/webhooks/${created.id}`, hook],
        ['DELETE', `/v2/webhooks/${created.id}`, undefined],
        ['POST', `/v2/webhooks/${created.id}/devices/3001`, undefined],
        ['GET', `/v2/webhooks/${created.id}/devices`, undefined],
        ['DELETE', `/v2/webhooks/${created.id}/devices/1001`, undefined],
        ['GET', `/v2/webhooks/${created.id}/devices/1001/routes`, undefined],
      ] as const) {
        const result = await bjorn(method, path, body);
        expect(result.status, `${method} ${path}`).toBe(404);
        expect(JSON.stringify(result.body)).not.toContain('Acme');
      }
      expect((await oscar('GET', `/v2/webhooks/${created.id}`)).status).toBe(200);
    });

    it('answers 503, not 401, when the platform is down', async () => {
      const down = await startWebhookApi({ location, platformUrl: `http://127.0.0.1:${await closedPort()}` });
      try {
        const result = await apiClient(down.url, `Bearer ${await personToken(platform().issuer, 'oscar')}`)('GET', '/v2/webhooks?companyId=1');
        expect(result).toMatchObject({ status: 503, body: { error: { code: 'PLATFORM_UNAVAILABLE' } } });
      } finally {
        await down.close();
      }
    });
  });

  describe('device links', () => {
    it('links a device of the company once (409 the second time), lists and unlinks it', async () => {
      const created = await createHook();
      const linked = await oscar('POST', `/v2/webhooks/${created.id}/devices/1001`);
      expect(linked).toMatchObject({ status: 201, body: { deviceId: 1001, webhookConfigId: created.id } });
      expect((linked.body as { createdAt: string }).createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect((await oscar('POST', `/v2/webhooks/${created.id}/devices/1001`)).body).toMatchObject({ error: { code: 'CONFLICT' } });
      expect((await oscar('GET', `/v2/webhooks/${created.id}/devices`)).body).toEqual([linked.body]);
      expect((await oscar('DELETE', `/v2/webhooks/${created.id}/devices/1001`)).status).toBe(204);
      expect((await oscar('DELETE', `/v2/webhooks/${created.id}/devices/1001`)).status).toBe(404);
    });

    it('answers 404 for a device of another company and an unknown device, 400 for a bad id', async () => {
      const created = await createHook();
      expect((await oscar('POST', `/v2/webhooks/${created.id}/devices/2001`)).status).toBe(404);
      expect((await oscar('POST', `/v2/webhooks/${created.id}/devices/3001`)).status).toBe(404);
      expect((await oscar('POST', `/v2/webhooks/${created.id}/devices/424242`)).status).toBe(404);
      expect((await oscar('POST', `/v2/webhooks/${created.id}/devices/abc`)).body).toMatchObject({ error: { field: 'deviceId' } });
      expect((await oscar('GET', `/v2/webhooks/${created.id}/devices`)).body).toEqual([]);
    });

    it('lets one device link to many configurations', async () => {
      const first = await createHook();
      const second = await createHook();
      expect((await oscar('POST', `/v2/webhooks/${first.id}/devices/1002`)).status).toBe(201);
      expect((await oscar('POST', `/v2/webhooks/${second.id}/devices/1002`)).status).toBe(201);
    });
  });

  describe('scopes', () => {
    async function linked() {
      const created = await createHook();
      await oscar('POST', `/v2/webhooks/${created.id}/devices/1001`);
      return `/v2/webhooks/${created.id}/devices/1001/routes`;
    }

    it.each([
      [{ scopeLevel: 'Device', connectionTag: 'modbus-1' }, 'connectionTag'],
      [{ scopeLevel: 'Device', measurement: 'temp' }, 'measurement'],
      [{ scopeLevel: 'Connection' }, 'connectionTag'],
      [{ scopeLevel: 'Connection', connectionTag: 'modbus-1', measurement: 'temp' }, 'measurement'],
      [{ scopeLevel: 'Measurement', connectionTag: 'modbus-1' }, 'measurement'],
      [{ scopeLevel: 'Measurement', measurement: 'temp' }, 'connectionTag'],
      [{ scopeLevel: 'Gateway' }, 'scopeLevel'],
      [{ scopeLevel: 'Connection', connectionTag: 'x'.repeat(256) }, 'connectionTag'],
      [{ scopeLevel: 'Device', enabled: 'on' }, 'enabled'],
    ])('answers 400 for %j, naming %s', async (body, field) => {
      const routes = await linked();
      expect((await oscar('POST', routes, body)).body).toMatchObject({ error: { code: 'VALIDATION_FAILED', field } });
      expect((await oscar('GET', routes)).body).toEqual([]);
    });

    it('adds scopes of each level, refuses an identical one with 409, toggles enabled with PUT and removes them', async () => {
      const routes = await linked();
      const device = await oscar('POST', routes, { scopeLevel: 'Device', connectionTag: '', measurement: null });
      expect(device).toMatchObject({ status: 201, body: { scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true } });
      const measurement = await oscar('POST', routes, { scopeLevel: 'Measurement', connectionTag: 'modbus-1', measurement: 'temp', enabled: false });
      expect(measurement.status).toBe(201);
      expect((await oscar('POST', routes, { scopeLevel: 'Measurement', connectionTag: 'modbus-1', measurement: 'temp' })).status).toBe(409);
      const id = (measurement.body as { id: string }).id;
      expect(
        (await oscar('PUT', `${routes}/${id}`, { scopeLevel: 'Measurement', connectionTag: 'modbus-1', measurement: 'temp', enabled: true })).body,
      ).toMatchObject({ id, enabled: true });
      expect((await oscar('PUT', `${routes}/${id}`, { scopeLevel: 'Device' })).status).toBe(409);
      expect((await oscar('PUT', `${routes}/not-a-route`, { scopeLevel: 'Device' })).status).toBe(404);
      expect(((await oscar('GET', routes)).body as unknown[]).length).toBe(2);
      expect((await oscar('DELETE', `${routes}/${id}`)).status).toBe(204);
      expect((await oscar('DELETE', `${routes}/${id}`)).status).toBe(404);
    });

    it('answers 404 for scopes of a device that is not linked', async () => {
      const created = await createHook();
      expect((await oscar('POST', `/v2/webhooks/${created.id}/devices/1002/routes`, { scopeLevel: 'Device' })).status).toBe(404);
    });
  });

  it('never logs a token or a webhook credential', async () => {
    const token = await personToken(platform().issuer, 'oscar');
    await apiClient(api.url, `Bearer ${token}`)('POST', '/v2/webhooks?companyId=1', {
      ...hook,
      authType: 'Bearer',
      authPayload: JSON.stringify({ token: 'log-scan-secret-77' }),
    });
    await apiClient(api.url, `ApiToken ${devSecrets.DEV_API_TOKEN_OSCAR}`)('GET', '/v2/webhooks?companyId=1');
    const output = api.logs.join('');
    expect(output).toContain('request completed');
    for (const secret of [token, 'log-scan-secret-77', 'receiver-secret-token-1', 'pa55-word-x', devSecrets.DEV_API_TOKEN_OSCAR])
      expect(output).not.toContain(secret);
  });
});
