import { startedForTests } from '@platform/tool-sdk/testing';
import { personToken, startPlatform } from '@platform/dev-platform/testing';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { WebhookLimits } from '../src/configs/limits.ts';
import { apiClient, newStoreLocation, startWebhookApi, type Backend, type RunningApi } from './harness.ts';

const platform = startedForTests(() => startPlatform());
let oscarToken: string;
beforeAll(async () => {
  oscarToken = await personToken(platform().issuer, 'oscar');
});

const hook = { name: 'Boiler feed', url: 'https://receiver.example/hook', deliveryMode: 'Realtime' };
const smallLimits: WebhookLimits = { configsPerCompany: 3, devicesPerConfig: 1, scopesPerLink: 2 };

/** GET with the response's Link header, which apiClient does not show. */
async function getPage(api: RunningApi, path: string) {
  const response = await fetch(`${api.url}${path}`, { headers: { authversion: 'V0.0.1', authorization: `Bearer ${oscarToken}` } });
  return { status: response.status, link: response.headers.get('link'), body: await response.json() };
}

/** The path of a Link header's rel="next" target. */
function nextOf(link: string | null): string {
  const match = /^<([^>]+)>; rel="next"$/.exec(link ?? '');
  if (!match?.[1]) throw new Error(`no next link in ${String(link)}`);
  return match[1];
}

describe.each<Backend>(['SQLite', 'PostgreSQL'])('limits and paging on %s', (backend) => {
  const running: RunningApi[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((api) => api.close()));
  });
  async function start(limits?: WebhookLimits) {
    const api = await startWebhookApi({
      location: await newStoreLocation(backend, inject('postgresUrl')),
      platformUrl: platform().issuer,
      ...(limits && { limits }),
    });
    running.push(api);
    return { api, oscar: apiClient(api.url, `Bearer ${oscarToken}`) };
  }

  describe('limits', () => {
    it('answers 409 LIMIT_REACHED naming the limit once a company has its most configurations, and stores nothing', async () => {
      const { api, oscar } = await start(smallLimits);
      for (let i = 0; i < 3; i++) expect((await oscar('POST', '/v2/webhooks?companyId=1', hook)).status).toBe(201);
      const refused = await oscar('POST', '/v2/webhooks?companyId=1', hook);
      expect(refused).toEqual({
        status: 409,
        body: { error: { code: 'LIMIT_REACHED', message: 'company 1 already has 3 webhook configurations, the most it may have' } },
      });
      expect(await api.store.countConfigs()).toBe(3);
    });

    it('answers 409 LIMIT_REACHED once a configuration has its most linked devices', async () => {
      const { oscar } = await start(smallLimits);
      const { id } = (await oscar('POST', '/v2/webhooks?companyId=1', hook)).body as { id: string };
      expect((await oscar('POST', `/v2/webhooks/${id}/devices/1001`)).status).toBe(201);
      expect(await oscar('POST', `/v2/webhooks/${id}/devices/1002`)).toEqual({
        status: 409,
        body: { error: { code: 'LIMIT_REACHED', message: `webhook configuration ${id} already has 1 linked device, the most it may have` } },
      });
      expect((await oscar('POST', `/v2/webhooks/${id}/devices/1001`)).body).toMatchObject({ error: { code: 'CONFLICT' } });
    });

    it('answers 409 LIMIT_REACHED once a device link has its most scopes', async () => {
      const { oscar } = await start(smallLimits);
      const { id } = (await oscar('POST', '/v2/webhooks?companyId=1', hook)).body as { id: string };
      await oscar('POST', `/v2/webhooks/${id}/devices/1001`);
      const routes = `/v2/webhooks/${id}/devices/1001/routes`;
      expect((await oscar('POST', routes, { scopeLevel: 'Device' })).status).toBe(201);
      expect((await oscar('POST', routes, { scopeLevel: 'Connection', connectionTag: 'modbus-1' })).status).toBe(201);
      expect(await oscar('POST', routes, { scopeLevel: 'Connection', connectionTag: 'modbus-2' })).toEqual({
        status: 409,
        body: { error: { code: 'LIMIT_REACHED', message: `device 1001 on webhook configuration ${id} already has 2 scopes, the most it may have` } },
      });
    });

    it('ends at exactly the limit when many creates arrive together', async () => {
      const { api, oscar } = await start({ configsPerCompany: 5, devicesPerConfig: 1000, scopesPerLink: 4 });
      const creates = await Promise.all(Array.from({ length: 16 }, () => oscar('POST', '/v2/webhooks?companyId=1', hook)));
      expect(creates.filter((r) => r.status === 201)).toHaveLength(5);
      expect(
        creates.filter((r) => r.status !== 201).every((r) => r.status === 409 && (r.body as { error: { code: string } }).error.code === 'LIMIT_REACHED'),
      ).toBe(true);
      expect(await api.store.countConfigs()).toBe(5);

      const { id } = creates.find((r) => r.status === 201)?.body as { id: string };
      await oscar('POST', `/v2/webhooks/${id}/devices/1001`);
      const scopes = await Promise.all(
        Array.from({ length: 12 }, (_, i) => oscar('POST', `/v2/webhooks/${id}/devices/1001/routes`, { scopeLevel: 'Connection', connectionTag: `tag-${i}` })),
      );
      expect(scopes.filter((r) => r.status === 201)).toHaveLength(4);
      expect(await api.store.listScopes(id, 1001)).toHaveLength(4);
    });
  });

  describe('paging', () => {
    it('returns everything in one page by default, with no Link header', async () => {
      const { oscar, api } = await start();
      for (let i = 0; i < 3; i++) await oscar('POST', '/v2/webhooks?companyId=1', { ...hook, name: `hook ${i}` });
      const page = await getPage(api, '/v2/webhooks?companyId=1');
      expect(page.status).toBe(200);
      expect((page.body as { name: string }[]).map((c) => c.name)).toEqual(['hook 0', 'hook 1', 'hook 2']);
      expect(page.link).toBeNull();
    });

    it('pages configurations in creation order, following the path-absolute Link of each page', async () => {
      const { oscar, api } = await start();
      for (let i = 0; i < 5; i++) await oscar('POST', '/v2/webhooks?companyId=1', { ...hook, name: `hook ${i}` });
      const names: string[][] = [];
      let path: string | undefined = '/v2/webhooks?companyId=1&limit=2';
      while (path !== undefined) {
        const page = await getPage(api, path);
        expect(page.status).toBe(200);
        names.push((page.body as { name: string }[]).map((c) => c.name));
        if (page.link === null) path = undefined;
        else {
          path = nextOf(page.link);
          expect(path).toMatch(/^\/v2\/webhooks\?companyId=1&limit=2&cursor=[\w-]+$/);
        }
      }
      expect(names).toEqual([['hook 0', 'hook 1'], ['hook 2', 'hook 3'], ['hook 4']]);
    });

    it('pages linked devices and scopes', async () => {
      const { oscar, api } = await start();
      const { id } = (await oscar('POST', '/v2/webhooks?companyId=1', hook)).body as { id: string };
      for (const deviceId of [1002, 1001]) await oscar('POST', `/v2/webhooks/${id}/devices/${deviceId}`);
      const devices = await getPage(api, `/v2/webhooks/${id}/devices?limit=1`);
      expect((devices.body as { deviceId: number }[]).map((l) => l.deviceId)).toEqual([1002]);
      const rest = await getPage(api, nextOf(devices.link));
      expect((rest.body as { deviceId: number }[]).map((l) => l.deviceId)).toEqual([1001]);
      expect(rest.link).toBeNull();

      const routes = `/v2/webhooks/${id}/devices/1001/routes`;
      for (const tag of ['c', 'a', 'b']) await oscar('POST', routes, { scopeLevel: 'Connection', connectionTag: tag });
      const first = await getPage(api, `${routes}?limit=2`);
      expect((first.body as { connectionTag: string }[]).map((s) => s.connectionTag)).toEqual(['c', 'a']);
      expect(nextOf(first.link)).toMatch(new RegExp(`^${routes}\\?limit=2&cursor=`));
      expect(((await getPage(api, nextOf(first.link))).body as { connectionTag: string }[]).map((s) => s.connectionTag)).toEqual(['b']);
    });

    it.each([
      ['0', 'limit'],
      ['101', 'limit'],
      ['abc', 'limit'],
      ['2.5', 'limit'],
    ])('answers 400 for limit=%s, naming the field', async (limit, field) => {
      const { oscar } = await start();
      expect((await oscar('GET', `/v2/webhooks?companyId=1&limit=${limit}`)).body).toMatchObject({ error: { code: 'VALIDATION_FAILED', field } });
    });

    it('answers 400 for a cursor it did not make, naming the field, and for a limit past the collection’s', async () => {
      const { oscar } = await start();
      const { id } = (await oscar('POST', '/v2/webhooks?companyId=1', hook)).body as { id: string };
      expect((await oscar('GET', '/v2/webhooks?companyId=1&cursor=not-a-cursor')).body).toMatchObject({
        error: { code: 'VALIDATION_FAILED', field: 'cursor' },
      });
      expect((await oscar('GET', `/v2/webhooks/${id}/devices?cursor=%00`)).body).toMatchObject({ error: { field: 'cursor' } });
      expect((await oscar('GET', `/v2/webhooks/${id}/devices?limit=1001`)).body).toMatchObject({ error: { field: 'limit' } });
      expect((await oscar('GET', `/v2/webhooks/${id}/devices?limit=1000`)).status).toBe(200);
    });

    it('refuses a cursor of another list: another company’s configurations, another configuration’s devices', async () => {
      const { oscar, api } = await start();
      for (let i = 0; i < 2; i++) await oscar('POST', '/v2/webhooks?companyId=1', { ...hook, name: `hook ${i}` });
      const ofCompanyOne = nextOf((await getPage(api, '/v2/webhooks?companyId=1&limit=1')).link);
      const cursor = new URLSearchParams(ofCompanyOne.split('?')[1]).get('cursor') ?? '';
      expect((await oscar('GET', `/v2/webhooks?companyId=2&cursor=${cursor}`)).body).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'cursor' } });

      const [a, b] = ((await oscar('GET', '/v2/webhooks?companyId=1')).body as { id: string }[]).map((c) => c.id);
      for (const deviceId of [1001, 1002]) await oscar('POST', `/v2/webhooks/${a ?? ''}/devices/${deviceId}`);
      const linksOfA = nextOf((await getPage(api, `/v2/webhooks/${a ?? ''}/devices?limit=1`)).link);
      const linksCursor = new URLSearchParams(linksOfA.split('?')[1]).get('cursor') ?? '';
      expect((await oscar('GET', `/v2/webhooks/${b ?? ''}/devices?cursor=${linksCursor}`)).body).toMatchObject({ error: { field: 'cursor' } });
    });
  });

  describe('the OpenAPI document', () => {
    it('documents limit, cursor and the Link header on the three list endpoints, and 409 on create', async () => {
      const { api } = await start();
      const document = (await (await fetch(`${api.url}/v2/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { parameters: { name?: string }[]; responses: Record<string, { headers?: Record<string, unknown> }> }>>;
        components: { headers: Record<string, { description: string }> };
      };
      for (const path of ['/v2/webhooks', '/v2/webhooks/{id}/devices', '/v2/webhooks/{id}/devices/{deviceId}/routes']) {
        const list = document.paths[path]?.get;
        expect(
          list?.parameters.map((p) => p.name),
          path,
        ).toEqual(expect.arrayContaining(['limit', 'cursor']));
        expect(list?.responses['200']?.headers, path).toEqual({ Link: { $ref: '#/components/headers/Link' } });
      }
      expect(document.components.headers.Link?.description).toContain('rel="next"');
      expect(Object.keys(document.paths['/v2/webhooks']?.post?.responses ?? {})).toContain('409');
    });
  });

  describe('path parameters', () => {
    it.each([
      ['GET', (id: string) => `/v2/webhooks/${id}%00`, 'id'],
      ['PUT', () => '/v2/webhooks/%00', 'id'],
      ['DELETE', (id: string) => `/v2/webhooks/x${id}%0A`, 'id'],
      ['GET', (id: string) => `/v2/webhooks/${id}%01/devices`, 'id'],
      ['POST', () => '/v2/webhooks/a%1Fb/devices/1001', 'id'],
      ['POST', () => '/v2/webhooks/a%C2%85b/devices/1001/routes', 'id'],
      ['PUT', (id: string) => `/v2/webhooks/${id}/devices/1001/routes/x%00y`, 'routeId'],
      ['DELETE', (id: string) => `/v2/webhooks/${id}/devices/1001/routes/%7F`, 'routeId'],
    ])('answers 400 to %s %s naming %s for a control character in it', async (method, path, field) => {
      const { oscar } = await start();
      const { id } = (await oscar('POST', '/v2/webhooks?companyId=1', hook)).body as { id: string };
      await oscar('POST', `/v2/webhooks/${id}/devices/1001`);
      const body =
        method === 'PUT'
          ? field === 'routeId'
            ? { scopeLevel: 'Device' }
            : hook
          : method === 'POST' && path(id).endsWith('routes')
            ? { scopeLevel: 'Device' }
            : undefined;
      expect(await oscar(method, path(id), body)).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED', field } } });
    });

    it('answers 404 for an id the service cannot have made', async () => {
      const { oscar } = await start();
      expect((await oscar('GET', '/v2/webhooks/not-a-uuid')).status).toBe(404);
      expect((await oscar('GET', `/v2/webhooks/${'x'.repeat(2000)}/devices`)).status).toBe(404);
    });
  });
});
