import { startedForTests } from '@platform/tool-sdk/testing';
import { request } from 'node:http';
import { generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { devSecrets } from './dev-env.ts';
import { appToken, delegatedToken, getJson, personToken, sendJson, startPlatform } from './harness.ts';

const mcpUrl = 'http://127.0.0.1:3000/mcp';
const running = startedForTests(() => startPlatform());
let api: string;
beforeAll(() => {
  api = running().issuer;
});

interface Me {
  id: string;
  audience: string[];
  actor?: { clientId: string };
  companies: { id: number; name: string; isOwner: boolean; roles: string[]; permissions: string[] }[];
}

async function me(token: string, scheme = 'Bearer'): Promise<Me> {
  const { status, body } = await getJson(`${api}/api/me`, token, scheme);
  expect(status).toBe(200);
  return body as Me;
}

describe('GET /api/me', () => {
  it("answers a person's own token with their roles and permissions", async () => {
    const result = await me(await personToken(api, 'oscar'));
    expect(result.id).toBe('u-oscar');
    expect(result.companies.map((c) => c.id)).toEqual([1, 2, 3]);
    expect(result.companies[0]).toEqual({
      id: 1,
      name: 'Acme Telemetry',
      isOwner: false,
      roles: ['device-operator'],
      permissions: ['device-overview:manage', 'device-overview:view', 'webhook-tools:use'],
    });
  });

  it('gives an owner every permission with their own token', async () => {
    const result = await me(await personToken(api, 'olivia'));
    expect(result.companies[0]?.isOwner).toBe(true);
    expect(result.companies[0]?.permissions).toEqual(expect.arrayContaining(['device-overview:manage', 'iam:roles:assign', 'apps:consent']));
  });

  it('accepts an ApiToken credential', async () => {
    expect((await me(devSecrets.DEV_API_TOKEN_OSCAR, 'ApiToken')).id).toBe('u-oscar');
  });

  it('narrows a delegated token: installed companies only, person ∩ app, isOwner false, roles []', async () => {
    const result = await me(await delegatedToken(api, 'oscar'));
    expect(result).toEqual({
      id: 'u-oscar',
      audience: [api],
      actor: { clientId: 'webhook-tools' },
      companies: [
        { id: 1, name: 'Acme Telemetry', isOwner: false, roles: [], permissions: ['device-overview:manage', 'device-overview:view', 'webhook-tools:use'] },
        // Only view is consented at company 2; Borealis (3) has not installed the app.
        { id: 2, name: 'Acme Field Services', isOwner: false, roles: [], permissions: ['device-overview:view', 'webhook-tools:use'] },
      ],
    });
  });

  it('denies an owner without the role under delegation', async () => {
    const result = await me(await delegatedToken(api, 'olivia'));
    expect(result.companies).toEqual([{ id: 1, name: 'Acme Telemetry', isOwner: false, roles: [], permissions: [] }]);
  });

  it('refuses what an app requested but was not consented', async () => {
    const result = await me(await delegatedToken(api, 'oscar', 'fleet-insights', devSecrets.FLEET_INSIGHTS_CLIENT_SECRET));
    expect(result.companies).toEqual([{ id: 1, name: 'Acme Telemetry', isOwner: false, roles: [], permissions: [] }]);
  });

  it('answers 403 to an app token: there is no person behind it', async () => {
    const { status } = await getJson(`${api}/api/me`, await appToken(api, 'webhook-tools', devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET));
    expect(status).toBe(403);
  });

  it('answers 401 for a missing, unknown, expired or wrongly signed token', async () => {
    const missing = await fetch(`${api}/api/me`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect((await getJson(`${api}/api/me`, 'unknown-token')).status).toBe(401);
    expect((await getJson(`${api}/api/me`, 'unknown-token', 'ApiToken')).status).toBe(401);

    expect((await getJson(`${api}/api/me`, await personToken(api, 'oscar', { expired: true }))).status).toBe(401);

    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ client_id: 'platform-dev-login', scope: 'api' })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'forged' })
      .setIssuer(api)
      .setAudience(api)
      .setSubject('u-oscar')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    expect((await getJson(`${api}/api/me`, forged)).status).toBe(401);
  });

  it("answers a person's own token issued for the MCP server, stating that audience", async () => {
    const forMcp = await personToken(api, 'oscar', { resource: mcpUrl });
    const result = await me(forMcp);
    expect(result).toMatchObject({ id: 'u-oscar', audience: [mcpUrl] });
    expect(result).not.toHaveProperty('actor');
  });

  it("states the platform API as the audience of a person's own token and of an API token", async () => {
    expect((await me(await personToken(api, 'oscar'))).audience).toEqual([api]);
    expect((await me(devSecrets.DEV_API_TOKEN_OSCAR, 'ApiToken')).audience).toEqual([api]);
  });

  it('answers 401 to several Authorization headers, even when each alone would do', async () => {
    const token = await personToken(api, 'oscar');
    const status = await new Promise<number>((resolvePromise, reject) => {
      const url = new URL(`${api}/api/me`);
      request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          headers: ['host', url.host, 'authorization', `Bearer ${token}`, 'authorization', `Bearer ${token}`],
        },
        (res) => {
          res.resume();
          resolvePromise(res.statusCode ?? 0);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(status).toBe(401);
  });
});

describe('a token issued for the MCP server', () => {
  const reads = ['/api/companies', '/api/companies/1', '/api/me/legal-documents', '/api/me/profile', '/api/devices/1001', '/api/companies/1/devices'];

  it.each(reads)('is no credential at GET %s (401)', async (path) => {
    const forMcp = await personToken(api, 'olivia', { resource: mcpUrl });
    const result = await getJson(`${api}${path}`, forMcp);
    expect(result).toMatchObject({ status: 401, body: { error: 'invalid_token', message: 'the token is not meant for this service' } });
    // The same person's token for the platform API is.
    expect((await getJson(`${api}${path}`, await personToken(api, 'olivia'))).status).toBe(200);
  });

  it('makes no administration call, even for the owner who could make it with an API token (401)', async () => {
    const forMcp = await personToken(api, 'olivia', { resource: mcpUrl });
    const result = await sendJson('PUT', `${api}/api/companies/1/identity-providers`, forMcp, { providers: [] });
    expect(result).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
  });
});

describe('identity reads under delegation', () => {
  it('shows only companies where the app is installed', async () => {
    const delegated = await delegatedToken(api, 'oscar');
    expect(((await getJson(`${api}/api/companies`, delegated)).body as { id: number }[]).map((c) => c.id)).toEqual([1, 2]);
    expect((await getJson(`${api}/api/companies/3`, delegated)).status).toBe(404);
    expect((await getJson(`${api}/api/companies/3`, await personToken(api, 'oscar'))).status).toBe(200);
  });

  it('shows legal documents of root companies where the app is installed only', async () => {
    const own = (await getJson(`${api}/api/me/legal-documents`, await personToken(api, 'oscar'))).body as { id: string }[];
    expect(own.map((d) => d.id).sort()).toEqual(['acme-terms-2026', 'borealis-dpa-2026']);
    const delegated = (await getJson(`${api}/api/me/legal-documents`, await delegatedToken(api, 'oscar'))).body as { id: string }[];
    expect(delegated.map((d) => d.id)).toEqual(['acme-terms-2026']);
  });

  it('shows the e-mail address only to an app consented to iam:profile:view', async () => {
    const consented = await getJson(`${api}/api/me/profile`, await delegatedToken(api, 'oscar'));
    expect(consented.body).toEqual({ id: 'u-oscar', username: 'oscar', email: 'oscar@acme.example' });
    const notConsented = await getJson(`${api}/api/me/profile`, await delegatedToken(api, 'oscar', 'fleet-insights', devSecrets.FLEET_INSIGHTS_CLIENT_SECRET));
    expect(notConsented.body).toEqual({ id: 'u-oscar' });
  });

  it('answers 404 for a device the caller may not view, never revealing its company', async () => {
    const delegated = await delegatedToken(api, 'oscar');
    expect((await getJson(`${api}/api/devices/1001`, delegated)).body).toMatchObject({ id: 1001, companyId: 1, gatewayId: 'gw-acme-01' });
    expect((await getJson(`${api}/api/devices/3001`, delegated)).status).toBe(404);
    expect((await getJson(`${api}/api/devices/9999`, delegated)).status).toBe(404);
    expect((await getJson(`${api}/api/companies/2/devices`, delegated)).body).toEqual([
      { id: 2001, companyId: 2, gatewayId: 'gw-field-07', name: 'Pump station 7' },
    ]);
  });
});

describe('ids in paths', () => {
  it.each([
    ['/api/companies/0x1', 'companyId'],
    ['/api/companies/1e3', 'companyId'],
    ['/api/companies/%201', 'companyId'],
    ['/api/companies/01', 'companyId'],
    ['/api/companies/0', 'companyId'],
    ['/api/companies/-1', 'companyId'],
    ['/api/companies/9007199254740993', 'companyId'],
    ['/api/devices/1001.0', 'deviceId'],
    ['/api/companies/1.0/devices', 'companyId'],
  ])('refuses GET %s with 400 naming %s', async (path, name) => {
    const result = await getJson(`${api}${path}`, await personToken(api, 'oscar'));
    expect(result).toMatchObject({ status: 400, body: { error: 'invalid_request', message: `${name} must be a positive whole number` } });
  });

  it('takes plain decimal ids', async () => {
    const oscar = await personToken(api, 'oscar');
    expect((await getJson(`${api}/api/companies/1`, oscar)).status).toBe(200);
    expect((await getJson(`${api}/api/devices/1001`, oscar)).status).toBe(200);
  });
});

describe('administration calls', () => {
  const adminCalls = [
    ['PUT', '/api/roles/device-viewer', { permissions: ['device-overview:view'] }],
    ['PUT', '/api/roles/acme-auditor', { companyId: 1, permissions: ['device-overview:view'] }],
    ['PUT', '/api/companies/1/role-assignments/u-vera', { roles: ['device-viewer'] }],
    ['PUT', '/api/companies/3/role-assignments/u-olivia', { roles: ['device-viewer'] }],
    ['PUT', '/api/companies/1/apps/fleet-insights/consent', { permissions: ['device-overview:view'] }],
    ['PUT', '/api/companies/3/apps/webhook-tools/installation', {}],
    ['PUT', '/api/apps/fleet-insights/definition', { name: 'Fleet', permissions: ['fleet-insights:read'], requestedClientPermissions: [] }],
    ['PUT', '/api/apps/fleet-insights/availability', { available: false }],
    ['PUT', '/api/apps/legacy-sync/definition', { name: 'Legacy', permissions: [], requestedClientPermissions: [] }],
    ['PUT', '/api/companies/1/identity-providers', { providers: [] }],
    ['POST', '/api/companies/1/legal-documents', { id: 'x', title: 'T', version: '1', url: 'https://legal.example/x' }],
  ] as const;

  it.each(adminCalls)('refuses %s %s with 403 under delegation, even for a company admin', async (method, path, body) => {
    const delegated = await delegatedToken(api, 'oscar');
    const result = await sendJson(method, `${api}${path}`, delegated, body);
    expect(result.status).toBe(403);
    expect(result.body).toMatchObject({ error: 'delegation_forbidden' });
  });

  it('lets a person with the right make them, and refuses one without', async () => {
    const owner = await personToken(api, 'olivia');
    expect(
      (
        await sendJson('PUT', `${api}/api/companies/1/identity-providers`, owner, {
          providers: [{ id: 'acme-sso', type: 'oidc', issuer: 'https://sso.acme.example' }],
        })
      ).status,
    ).toBe(200);
    const viewer = await personToken(api, 'vera');
    expect((await sendJson('PUT', `${api}/api/companies/1/identity-providers`, viewer, { providers: [] })).status).toBe(403);
    expect((await sendJson('PUT', `${api}/api/companies/1/identity-providers`, owner, { providers: [{ id: 'x' }] })).body).toMatchObject({
      error: 'invalid_request',
      message: expect.stringContaining('providers.0.type') as unknown,
    });
  });

  it('applies a withdrawn consent on the very next /api/me', async () => {
    const delegated = await delegatedToken(api, 'oscar');
    const before = await me(delegated);
    expect(before.companies[0]?.permissions).toContain('device-overview:manage');
    const owner = await personToken(api, 'olivia');
    const withdrawn = await sendJson('PUT', `${api}/api/companies/1/apps/webhook-tools/consent`, owner, {
      permissions: ['device-overview:view', 'iam:profile:view'],
    });
    expect(withdrawn.status).toBe(200);
    const after = await me(delegated);
    expect(after.companies[0]?.permissions).toEqual(['device-overview:view', 'webhook-tools:use']);
    // and a changed role, too
    expect((await sendJson('PUT', `${api}/api/companies/1/role-assignments/u-oscar`, owner, { roles: [] })).status).toBe(200);
    expect((await me(delegated)).companies[0]?.permissions).toEqual([]);
    await sendJson('PUT', `${api}/api/companies/1/role-assignments/u-oscar`, owner, { roles: ['device-operator'] });
    await sendJson('PUT', `${api}/api/companies/1/apps/webhook-tools/consent`, owner, {
      permissions: ['device-overview:view', 'device-overview:manage', 'iam:profile:view'],
    });
  });

  it('refuses consent to a permission the app does not request', async () => {
    const owner = await personToken(api, 'olivia');
    const result = await sendJson('PUT', `${api}/api/companies/1/apps/webhook-tools/consent`, owner, { permissions: ['apps:manage'] });
    expect(result).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it.each([
    ['no token', undefined],
    ['an unknown token', 'Bearer unknown-token'],
  ])('answers a malformed JSON body with %s with 401: the token is checked before the body is read', async (_case, authorization) => {
    const response = await fetch(`${api}/api/roles/x`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...(authorization && { authorization }) },
      body: '{"permissions":',
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('answers a malformed JSON body with 400, not 500', async () => {
    const owner = await personToken(api, 'olivia');
    const response = await fetch(`${api}/api/roles/x`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
      body: '{"permissions":',
    });
    expect(response.status).toBe(400);
  });
});

describe('another platform service', () => {
  async function embed(token: string) {
    return fetch(`${running().aiUrl}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'pump pressure' }),
    });
  }

  it('answers 401 to a token carrying act', async () => {
    const response = await embed(await delegatedToken(api, 'oscar'));
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('answers 401 to a token issued for the MCP server', async () => {
    const response = await embed(await personToken(api, 'oscar', { resource: mcpUrl }));
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_token' });
  });

  it("serves a person's and an app's own tokens", async () => {
    expect((await embed(await personToken(api, 'oscar'))).status).toBe(200);
    const response = await embed(await appToken(api, 'webhook-tools', devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { embedding: number[] }[] };
    expect(body.data[0]?.embedding).toHaveLength(8);
  });
});

describe('logs', () => {
  it('never contain a token, a client secret or an API token', async () => {
    const token = await personToken(api, 'oscar');
    await getJson(`${api}/api/me`, token);
    await getJson(`${api}/api/me`, devSecrets.DEV_API_TOKEN_OSCAR, 'ApiToken');
    const delegated = await delegatedToken(api, 'oscar');
    await getJson(`${api}/api/me`, delegated);
    const output = running().logs.join('');
    expect(output.length).toBeGreaterThan(0);
    expect(output).toContain('/api/me');
    for (const secret of [token, delegated, ...Object.values(devSecrets)]) expect(output).not.toContain(secret);
  });
});
