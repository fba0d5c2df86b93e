import { personToken, startPlatform, type RunningPlatform } from '@platform/dev-platform/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, newStoreLocation, startWebhookApi, type Backend, type RunningApi } from './harness.ts';

let platform: RunningPlatform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 });
const jsonText = fc.oneof(fc.json(), printable, fc.constantFrom('{"token":"t"}', '{"apiKeyValue":"k"}', '{"username":"u","password":"p"}', '{"headers":{"X-A":"b"}}', '{"headers":{"Host":"x"}}', '{}', '[]', ''));

/** Configuration bodies: mostly near-valid, with every field sometimes wrong, missing or extra. */
const configBody = fc.record(
  {
    name: fc.oneof(fc.string({ maxLength: 300 }), fc.integer(), fc.constant(null)),
    url: fc.oneof(fc.webUrl(), printable, fc.constant('https://receiver.example/h'), fc.string({ minLength: 2040, maxLength: 2060 })),
    method: fc.oneof(fc.constantFrom('POST', 'PUT', 'PATCH', 'GET', 'post'), fc.integer()),
    deliveryMode: fc.constantFrom('Realtime', 'Batch', 'realtime', '', 3),
    authType: fc.constantFrom('None', 'Bearer', 'ApiKey', 'Basic', 'Custom', 'Oauth', null),
    authPayload: fc.oneof(fc.constant(null), jsonText, fc.integer()),
    customHeaders: fc.oneof(fc.constant(null), jsonText, fc.constantFrom('{"X-Tenant":"a"}', '{"Content-Length":"1"}', '{"x-api-key":"k"}')),
    includeMetadataHeaders: fc.oneof(fc.boolean(), printable),
    includeRetryHeader: fc.oneof(fc.boolean(), fc.constant(null)),
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);

const scopeBody = fc.record(
  {
    scopeLevel: fc.constantFrom('Device', 'Connection', 'Measurement', 'device', '', null),
    connectionTag: fc.oneof(fc.constant(null), fc.string({ maxLength: 260 }), fc.integer()),
    measurement: fc.oneof(fc.constant(null), fc.string({ maxLength: 260 })),
    enabled: fc.oneof(fc.boolean(), printable),
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);

const pathPart = fc.oneof(fc.string({ maxLength: 40 }), fc.integer().map(String), fc.constantFrom('0', '-1', '1e3', '9007199254740993', '..', '%', ' '));

describe.each<[Backend, number]>([['SQLite', 150], ['PostgreSQL', 60]])('fuzzing the webhook API on %s', (backend, numRuns) => {
  let api: RunningApi;
  let client: ReturnType<typeof apiClient>;
  let configId: string;

  beforeAll(async () => {
    api = await startWebhookApi({ location: await newStoreLocation(backend, inject('postgresUrl')), platformUrl: platform.issuer });
    client = apiClient(api.url, `Bearer ${await personToken(platform.issuer, 'oscar')}`);
    const created = await client('POST', '/v2/webhooks?companyId=1', { name: 'fuzz', url: 'https://receiver.example/h', deliveryMode: 'Batch', authType: 'Bearer', authPayload: '{"token":"t"}' });
    configId = (created.body as { id: string }).id;
    await client('POST', `/v2/webhooks/${configId}/devices/1001`);
  });
  afterAll(async () => {
    await api.close();
  });

  it('never answers 5xx to a configuration body, and stores nothing when it refuses one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(configBody.map((b) => JSON.stringify(b)), fc.string({ maxLength: 200 })), async (body) => {
        const before = await api.store.countConfigs();
        const result = await client('POST', '/v2/webhooks?companyId=1', body);
        expect([201, 400]).toContain(result.status);
        expect(await api.store.countConfigs()).toBe(before + (result.status === 201 ? 1 : 0));
      }),
      { numRuns },
    );
  });

  it('never answers 5xx to an update, and leaves the configuration as it was when it refuses one', async () => {
    await fc.assert(
      fc.asyncProperty(configBody, async (body) => {
        const before = await api.store.getConfig(configId);
        const result = await client('PUT', `/v2/webhooks/${configId}`, body);
        expect([200, 400]).toContain(result.status);
        if (result.status === 400) expect(await api.store.getConfig(configId)).toEqual(before);
      }),
      { numRuns },
    );
  });

  it('never answers 5xx to a scope body, and adds no scope when it refuses one', async () => {
    const routes = `/v2/webhooks/${configId}/devices/1001/routes`;
    await fc.assert(
      fc.asyncProperty(scopeBody, async (body) => {
        const before = await api.store.listScopes(configId, 1001);
        const result = await client('POST', routes, body);
        expect([201, 400, 409]).toContain(result.status);
        if (result.status !== 201) expect(await api.store.listScopes(configId, 1001)).toEqual(before);
      }),
      { numRuns },
    );
  });

  it('never answers 5xx to any path parameters', async () => {
    await fc.assert(
      fc.asyncProperty(pathPart, pathPart, pathPart, fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), async (id, deviceId, routeId, method) => {
        const paths = [
          `/v2/webhooks/${encodeURIComponent(id)}`,
          `/v2/webhooks/${encodeURIComponent(id)}/devices/${encodeURIComponent(deviceId)}`,
          `/v2/webhooks/${configId}/devices/${encodeURIComponent(deviceId)}/routes/${encodeURIComponent(routeId)}`,
        ];
        for (const path of paths) {
          const result = await client(method, path, method === 'PUT' ? { name: 'x', url: 'https://x.example', deliveryMode: 'Batch' } : undefined);
          expect(result.status, `${method} ${path}`).toBeLessThan(500);
        }
      }),
      { numRuns: Math.ceil(numRuns / 3) },
    );
    expect((await client('GET', `/v2/webhooks/${configId}`)).status).toBe(200);
  });

  it('never answers 5xx to any AuthVersion, Authorization or companyView header', async () => {
    const token = await personToken(platform.issuer, 'oscar');
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(printable, fc.constant('V0.0.1')),
        fc.oneof(printable, fc.constant(`Bearer ${token}`), printable.map((t) => `Bearer ${t}`), printable.map((t) => `ApiToken ${t}`)),
        fc.option(fc.oneof(printable, fc.integer().map(String)), { nil: undefined }),
        async (authVersion, authorization, companyView) => {
          const result = await apiClient(api.url, authorization)('GET', '/v2/webhooks?companyId=1', undefined, {
            authversion: authVersion,
            ...(companyView !== undefined && { companyview: companyView }),
          });
          expect(result.status).toBeLessThan(500);
        },
      ),
      { numRuns },
    );
  });
});
