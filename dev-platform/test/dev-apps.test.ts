// An app of its own for a new tool service, registered on the running dev platform (PUT
// /dev/apps/:clientId, what `npm run tool-env` calls): its client credentials work at once, it is a
// tool publisher with its key, a person's token delegated to it is narrowed to its installations
// and consent, and it is still there, with the same secret, after the platform restarts on the same
// PLATFORM_APPS_FILE. The seed's apps are never replaced, and bad definitions are refused naming the field.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppsFileError } from '../src/world/dev-apps.ts';
import { appToken, defaultSeed, delegatedToken, getJson, startPlatform, type RunningPlatform } from './harness.ts';

const started: RunningPlatform[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((platform) => platform.close()));
});

async function platformWith(appsFile: string): Promise<RunningPlatform> {
  const platform = await startPlatform({ env: { PLATFORM_APPS_FILE: appsFile } });
  started.push(platform);
  return platform;
}

async function putApp(issuer: string, clientId: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${issuer}/dev/apps/${clientId}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const myTools = {
  permissions: ['my-tools:use'],
  installations: [
    { companyId: 1, consentedPermissions: ['device-overview:view', 'device-overview:manage'] },
    { companyId: 2, consentedPermissions: ['device-overview:view'] },
  ],
  toolPublisher: true,
};

describe('PUT /dev/apps/:clientId', () => {
  it('registers an app of its own whose credentials, key, publisher mark and delegation work at once and after a restart', async () => {
    const appsFile = join(mkdtempSync(join(tmpdir(), 'dev-apps-')), 'dev-apps.json');
    const platform = await platformWith(appsFile);
    const created = await putApp(platform.issuer, 'my-tools', myTools);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      clientId: 'my-tools',
      appKey: 'my-tools',
      name: 'my-tools',
      permissions: ['my-tools:use'],
      requestedClientPermissions: ['device-overview:view', 'device-overview:manage'],
      toolPublisher: true,
    });
    const secret = String(created.body.clientSecret);
    expect(secret.length).toBeGreaterThanOrEqual(32);

    const token = await appToken(platform.issuer, 'my-tools', secret);
    expect((await getJson(`${platform.issuer}/api/apps/me`, token)).body).toEqual({
      clientId: 'my-tools',
      appKey: 'my-tools',
      name: 'my-tools',
      toolPublisher: true,
    });
    // Oscar operates devices at 1 and 2: through this app, manage at 1, view only at 2, and 3 (not installed) hidden.
    const me = await getJson(`${platform.issuer}/api/me`, await delegatedToken(platform.issuer, 'oscar', 'my-tools', secret));
    expect(me.body).toMatchObject({
      actor: { clientId: 'my-tools' },
      companies: [
        { id: 1, permissions: ['device-overview:manage', 'device-overview:view'] },
        { id: 2, permissions: ['device-overview:view'] },
      ],
    });
    expect(statSync(appsFile).mode & 0o777).toBe(0o600);
    expect(platform.logs.join('\n')).not.toContain(secret);

    await platform.close();
    started.splice(started.indexOf(platform), 1);
    const restarted = await platformWith(appsFile);
    const again = await appToken(restarted.issuer, 'my-tools', secret);
    expect((await getJson(`${restarted.issuer}/api/apps/me`, again)).body).toMatchObject({ appKey: 'my-tools', toolPublisher: true });
    // Registered again after the restart: the new secret works at once, the old one no longer.
    const renewed = await putApp(restarted.issuer, 'my-tools', myTools);
    expect(renewed.status).toBe(200);
    await appToken(restarted.issuer, 'my-tools', String(renewed.body.clientSecret));
    await expect(appToken(restarted.issuer, 'my-tools', secret)).rejects.toThrow();
  });

  it('gives an app registered again a new secret, and the old one stops working', async () => {
    const platform = await platformWith(join(mkdtempSync(join(tmpdir(), 'dev-apps-')), 'dev-apps.json'));
    const first = await putApp(platform.issuer, 'my-tools', myTools);
    const second = await putApp(platform.issuer, 'my-tools', { ...myTools, toolPublisher: false });
    expect(second.status).toBe(200);
    expect(second.body.clientSecret).not.toBe(first.body.clientSecret);
    await expect(appToken(platform.issuer, 'my-tools', String(first.body.clientSecret))).rejects.toThrow();
    const token = await appToken(platform.issuer, 'my-tools', String(second.body.clientSecret));
    expect((await getJson(`${platform.issuer}/api/apps/me`, token)).body).toMatchObject({ toolPublisher: false });
  });

  it.each<[string, number, string, unknown]>([
    ['webhook-tools', 409, 'clientId: webhook-tools is an app or client of the seed; choose another name for a new app', myTools],
    ['mcp-gateway', 409, 'clientId: mcp-gateway is an app or client of the seed', myTools],
    ['My_Tools', 400, 'clientId: must be 1 to 63 lower-case letters, digits and dashes', myTools],
    ['my-tools', 400, 'toolPublisher: ', { ...myTools, toolPublisher: 'yes' }],
    ['my-tools', 400, 'installations[0].companyId: no company 9', { ...myTools, installations: [{ companyId: 9, consentedPermissions: [] }] }],
    ['my-tools', 400, "permissions[0]: webhook-tools:use is outside the app's own namespace my-tools:", { ...myTools, permissions: ['webhook-tools:use'] }],
    [
      'my-tools',
      400,
      'installations[0].consentedPermissions[1]: device-overview:manage is not in requestedClientPermissions',
      { ...myTools, requestedClientPermissions: ['device-overview:view'] },
    ],
    ['my-tools', 400, 'Unrecognized key', { ...myTools, extra: true }],
  ])('refuses %s with %i: %s', async (clientId, status, message, body) => {
    const platform = await platformWith(join(mkdtempSync(join(tmpdir(), 'dev-apps-')), 'dev-apps.json'));
    const refused = await putApp(platform.issuer, clientId, body);
    expect(refused.status).toBe(status);
    expect(String(refused.body.message)).toContain(message);
  });

  it('refuses to start on an apps file that does not fit the seed, naming the file and the field', async () => {
    const appsFile = join(mkdtempSync(join(tmpdir(), 'dev-apps-')), 'dev-apps.json');
    const clash = { ...defaultSeed().apps[0], clientSecret: 'a-secret-of-its-own' };
    writeFileSync(appsFile, JSON.stringify({ version: 1, apps: [clash] }), { mode: 0o600 });
    await expect(startPlatform({ env: { PLATFORM_APPS_FILE: appsFile } })).rejects.toThrow(AppsFileError);
    await expect(startPlatform({ env: { PLATFORM_APPS_FILE: appsFile } })).rejects.toThrow(/clientId: webhook-tools appears twice/);
    writeFileSync(appsFile, 'not json');
    await expect(startPlatform({ env: { PLATFORM_APPS_FILE: appsFile } })).rejects.toThrow(`${appsFile} is not an apps file this platform wrote`);
    expect(readFileSync(appsFile, 'utf8')).toBe('not json');
  });
});
