import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { delegatedToken, personToken, startPlatform } from '@platform/dev-platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, startedForTests } from '@platform/tool-sdk/testing';
import { apiClient, newStoreLocation, startWebhookApi, type RunningApi } from './harness.ts';
import { sourceCondition } from '@platform/devtools/source-condition';

const platform = startedForTests(() => startPlatform());
let api: RunningApi;
beforeAll(async () => {
  api = await startWebhookApi({ location: await newStoreLocation('SQLite', ''), platformUrl: platform().issuer });
});
afterAll(async () => {
  await api.close();
});

const hook = { name: 'Edge', url: 'https://receiver.example/hook', deliveryMode: 'Realtime' };

/** A raw request, for what fetch will not send: repeated headers, oversized ones. */
function raw(path: string, headers: string[]): Promise<{ status: number; body: string }> {
  const url = new URL(api.url);
  return new Promise((resolvePromise, reject) => {
    request({ host: url.hostname, port: url.port, path, headers: ['host', url.host, ...headers] }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolvePromise({ status: res.statusCode ?? 0, body });
      });
    })
      .on('error', reject)
      .end();
  });
}

describe('the webhook API edge', () => {
  it('refuses with 401 a person’s token issued for the MCP server, saying which token it takes and how to get one locally', async () => {
    const forMcp = await personToken(platform().issuer, 'oscar', { resource: 'http://127.0.0.1:3000/mcp' });
    const result = await apiClient(api.url, `Bearer ${forMcp}`)('GET', '/v2/webhooks?companyId=1');
    expect(result).toMatchObject({
      status: 401,
      body: {
        error: {
          code: 'UNAUTHENTICATED',
          field: 'Authorization',
          message: 'Authorization: the token was not issued for this service',
          hint: "The webhook API takes a token issued for the platform API (a person's token requested without the MCP server as its resource, a delegated token, or an ApiToken), not one issued for the MCP server. Locally, npm run token -- <user> --api prints one.",
        },
      },
    });
    const before = await api.store.countConfigs();
    expect((await apiClient(api.url, `Bearer ${forMcp}`)('POST', '/v2/webhooks?companyId=1', hook)).status).toBe(401);
    expect(await api.store.countConfigs()).toBe(before);
  });

  it('takes a delegated token and a person’s token issued for the platform API', async () => {
    expect((await apiClient(api.url, `Bearer ${await delegatedToken(platform().issuer, 'oscar')}`)('GET', '/v2/webhooks?companyId=1')).status).toBe(200);
    expect((await apiClient(api.url, `Bearer ${await personToken(platform().issuer, 'oscar')}`)('GET', '/v2/webhooks?companyId=1')).status).toBe(200);
  });

  it('answers 401 to several Authorization headers, even when each alone would do', async () => {
    const token = await personToken(platform().issuer, 'oscar');
    const result = await raw('/v2/webhooks?companyId=1', ['authversion', 'V0.0.1', 'authorization', `Bearer ${token}`, 'authorization', `Bearer ${token}`]);
    expect(result.status).toBe(401);
    expect(JSON.parse(result.body)).toMatchObject({ error: { code: 'UNAUTHENTICATED', field: 'Authorization' } });
  });

  it('answers 415 to a body that is not JSON, and stores nothing', async () => {
    const before = await api.store.countConfigs();
    const client = apiClient(api.url, `Bearer ${await personToken(platform().issuer, 'oscar')}`);
    const result = await client('POST', '/v2/webhooks?companyId=1', JSON.stringify(hook), { 'content-type': 'text/plain' });
    expect(result).toMatchObject({ status: 415, body: { error: { code: 'UNSUPPORTED_MEDIA_TYPE', field: 'Content-Type' } } });
    const form = await client('POST', '/v2/webhooks?companyId=1', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(await api.store.countConfigs()).toBe(before);
  });

  it.each([
    ['a UTF-16 body', { 'content-type': 'application/json; charset=utf-16' }, 'Content-Type'],
    ['a UTF-7 body', { 'content-type': 'application/json; charset="UTF-7"' }, 'Content-Type'],
    ['a body in charset utf8, not a name of UTF-8', { 'content-type': 'application/json; charset=utf8' }, 'Content-Type'],
    ['a gzip-encoded body', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, 'Content-Encoding'],
  ])('answers 415 to %s, and stores nothing', async (_case, headers, field) => {
    const before = await api.store.countConfigs();
    const client = apiClient(api.url, `Bearer ${await personToken(platform().issuer, 'oscar')}`);
    const result = await client('POST', '/v2/webhooks?companyId=1', JSON.stringify(hook), headers);
    expect(result).toMatchObject({ status: 415, body: { error: { code: 'UNSUPPORTED_MEDIA_TYPE', field } } });
    expect(await api.store.countConfigs()).toBe(before);
    expect((await client('POST', '/v2/webhooks?companyId=1', JSON.stringify(hook), { 'content-type': 'application/json; charset=UTF-8' })).status).toBe(201);
  });

  it('answers 400 naming the path, without echoing it, to a path segment that is not percent-encoded UTF-8', async () => {
    const client = apiClient(api.url, `Bearer ${await personToken(platform().issuer, 'oscar')}`);
    for (const segment of ['%E0%A4%A', '%ED%A0%80', '%FF']) {
      const result = await client('GET', `/v2/webhooks/${segment}`);
      expect(result).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED', field: 'path' } } });
      expect(JSON.stringify(result.body)).not.toContain(segment);
    }
  });

  it('answers 400 to a body that gives a field twice, and stores nothing', async () => {
    const before = await api.store.countConfigs();
    const client = apiClient(api.url, `Bearer ${await personToken(platform().issuer, 'oscar')}`);
    const twice = '{"name":"a","name":"b","url":"https://receiver.example/hook","deliveryMode":"Realtime"}';
    expect(await client('POST', '/v2/webhooks?companyId=1', twice)).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED', field: 'name' } },
    });
    const oddKey = '{"n\\u0000":1,"n\\u0000":2,"name":"a","url":"https://receiver.example/hook","deliveryMode":"Realtime"}';
    expect(await client('POST', '/v2/webhooks?companyId=1', oddKey)).toMatchObject({ status: 400, body: { error: { field: 'body' } } });
    expect(await api.store.countConfigs()).toBe(before);
  });

  it('answers 400 naming name to a text-direction override that would make it read otherwise', async () => {
    const client = apiClient(api.url, `Bearer ${await personToken(platform().issuer, 'oscar')}`);
    const result = await client('POST', '/v2/webhooks?companyId=1', { ...hook, name: 'invoice\u202Efdp.exe' });
    expect(result).toMatchObject({
      status: 400,
      body: { error: { field: 'name', message: 'name: must not contain text-direction controls or line separators' } },
    });
  });

  it('answers 400 to a device id with leading zeros, as the platform does', async () => {
    const client = apiClient(api.url, `Bearer ${await personToken(platform().issuer, 'oscar')}`);
    const { id } = (await client('POST', '/v2/webhooks?companyId=1', hook)).body as { id: string };
    expect((await client('POST', `/v2/webhooks/${id}/devices/01001`)).body).toMatchObject({ error: { field: 'deviceId' } });
  });

  it('answers 405 with Allow to a method a known path does not take, and 404 to a path it does not know', async () => {
    const token = `Bearer ${await personToken(platform().issuer, 'oscar')}`;
    const client = apiClient(api.url, token);
    const { id } = (await client('POST', '/v2/webhooks?companyId=1', hook)).body as { id: string };
    const ask = async (method: string, path: string) => {
      const response = await fetch(`${api.url}${path}`, { method, headers: { authversion: 'V0.0.1', authorization: token } });
      return { status: response.status, allow: response.headers.get('allow'), body: await response.json() };
    };
    expect(await ask('PATCH', `/v2/webhooks/${id}`)).toEqual({
      status: 405,
      allow: 'DELETE, GET, HEAD, PUT',
      body: { error: { code: 'METHOD_NOT_ALLOWED', message: 'PATCH is not a method of this path; it takes DELETE, GET, HEAD, PUT' } },
    });
    expect(await ask('GET', `/v2/webhooks/${id}/devices/1001`)).toMatchObject({ status: 405, allow: 'DELETE, POST' });
    expect(await ask('DELETE', '/health')).toMatchObject({ status: 405, allow: 'GET, HEAD' });
    expect(await ask('PATCH', `/V2/Webhooks/${id}`)).toMatchObject({ status: 405, allow: 'DELETE, GET, HEAD, PUT' });
    expect(await ask('GET', '/internal/telemetry')).toMatchObject({ status: 405, allow: 'POST' });
    expect(await ask('GET', `/v2/webhooks/${id}/nothing`)).toMatchObject({ status: 404, allow: null, body: { error: { code: 'NOT_FOUND' } } });
    // The caller is checked first: a method a path does not take tells nothing to a caller without a token.
    expect((await fetch(`${api.url}/v2/webhooks/${id}`, { method: 'PATCH', headers: { authversion: 'V0.0.1' } })).status).toBe(401);
  });

  it('says companyId must be given once when it is repeated', async () => {
    const client = apiClient(api.url, `Bearer ${await personToken(platform().issuer, 'oscar')}`);
    expect((await client('GET', '/v2/webhooks?companyId=1&companyId=1')).body).toMatchObject({
      error: { field: 'companyId', message: 'companyId: must be given once, as a positive whole number' },
    });
  });

  it('answers a request Node cannot parse with 400 and the API’s error body', async () => {
    const { hostname, port } = new URL(api.url);
    const socket = connect(Number(port), hostname);
    socket.end('NOT A REQUEST\r\n\r\n');
    let answer = '';
    socket.setEncoding('utf8');
    for await (const chunk of socket) answer += chunk as string;
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'request' } });
  });

  it('answers headers too large with 431 and the API’s error body', async () => {
    const result = await raw('/v2/webhooks?companyId=1', ['x-filler', 'x'.repeat(20_000)]);
    expect(result.status).toBe(431);
    expect(JSON.parse(result.body)).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String) as unknown } });
  });

  it('never logs a token sent in a query string or an unknown header', async () => {
    const token = await personToken(platform().issuer, 'oscar');
    await fetch(`${api.url}/v2/webhooks?companyId=1&access_token=${token}`, { headers: { authversion: 'V0.0.1', 'x-token': `query-leak-${token}` } });
    await fetch(`${api.url}/v2/openapi.json?client_secret=query-client-secret-1`);
    const output = api.logs.join('');
    expect(output).toContain('"path":"/v2/webhooks"');
    expect(output).not.toContain(token);
    expect(output).not.toContain('query-client-secret-1');
  });
});

describe('a caller refused by the platform between two of its answers', () => {
  it('answers 401, not 502, when the platform refuses the caller’s token on the device look-up', async () => {
    // /api/me still vouches for the token (as a cached check would), the device API no longer does.
    const platformStub = await listen((req, res) => {
      if (req.url === '/api/me') {
        const me = {
          id: 'u-1',
          audience: [platformStub.url],
          companies: [{ id: 1, name: 'Acme', isOwner: false, roles: [], permissions: ['device-overview:manage', 'device-overview:view'] }],
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(me));
      } else {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
      }
    });
    const stubbed = await startWebhookApi({ location: await newStoreLocation('SQLite', ''), platformUrl: platformStub.url });
    try {
      const client = apiClient(stubbed.url, 'Bearer revoked-meanwhile');
      const { id } = (await client('POST', '/v2/webhooks?companyId=1', hook)).body as { id: string };
      expect(await client('POST', `/v2/webhooks/${id}/devices/1001`)).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHENTICATED' } } });
    } finally {
      await stubbed.close();
      await platformStub.close();
    }
  });
});

describe('starting the webhook API', () => {
  const main = resolve(import.meta.dirname, '../src/main.ts');
  const start = (env: Record<string, string>) =>
    spawnSync(process.execPath, [sourceCondition, main], {
      env: { PATH: process.env.PATH ?? '', WEBHOOK_DATA_DIR: resolve(import.meta.dirname, '../../data/test-never'), ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });

  it('stops with one line naming WEBHOOK_ENCRYPTION_KEY, never printing the key, when the key is malformed', () => {
    const secretish = randomBytes(16).toString('base64');
    const run = start({ WEBHOOK_ENCRYPTION_KEY: `2026-11:${secretish}` });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('webhook-api cannot start: Invalid settings: WEBHOOK_ENCRYPTION_KEY is malformed: entry 1 must hold 32 random bytes');
    expect(run.stderr + run.stdout).not.toContain(secretish);
  });

  it('refuses a plain-http platform URL off loopback, where callers’ tokens would travel in clear', () => {
    const run = start({ PLATFORM_API_BASE_URL: 'http://platform().example' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('PLATFORM_API_BASE_URL must use https');
  });
});
