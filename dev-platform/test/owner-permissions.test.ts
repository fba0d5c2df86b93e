// An owner holds every permission the platform has ever known at their company: editing a role or
// an app never takes a permission from owners, wherever the edit was made.
import { startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { getJson, personToken, seedWithPlatformAdministrator, sendJson, startPlatform } from './harness.ts';

const running = startedForTests(() => startPlatform({ seed: seedWithPlatformAdministrator() }), { per: 'test' });
const api = () => running().issuer;

const permissionsAt = async (token: string, companyId: number) =>
  ((await getJson(`${api()}/api/me`, token)).body as { companies: { id: number; permissions: string[] }[] }).companies.find((c) => c.id === companyId)
    ?.permissions;

const administration = ['iam:roles:manage', 'iam:roles:assign', 'iam:idp:manage', 'apps:consent', 'apps:install', 'apps:manage', 'legal:publish'];

describe("an owner's permissions", () => {
  it('stay whole when the only role naming them is narrowed', async () => {
    const olivia = await personToken(api(), 'olivia');
    const before = await permissionsAt(olivia, 1);
    expect(before).toEqual(expect.arrayContaining(administration));

    const pat = await personToken(api(), 'pat');
    expect((await sendJson('PUT', `${api()}/api/roles/company-admin`, pat, { permissions: ['device-overview:view'] })).status).toBe(200);

    expect(await permissionsAt(olivia, 1)).toEqual(before);
    const providers = { providers: [{ id: 'acme-sso', type: 'oidc', issuer: 'https://sso.acme.example' }] };
    expect((await sendJson('PUT', `${api()}/api/companies/1/identity-providers`, olivia, providers)).status).toBe(200);
    const terms = { id: 'acme-terms-2026', title: 'Acme terms of use', version: '2026-02', url: 'https://legal.acme.example/terms/2026-02' };
    expect((await sendJson('POST', `${api()}/api/companies/1/legal-documents`, olivia, terms)).status).toBe(201);
  });

  it('stay whole when an app stops requesting a permission or drops one of its own', async () => {
    const olivia = await personToken(api(), 'olivia');
    const before = await permissionsAt(olivia, 1);
    expect(before).toEqual(expect.arrayContaining(['iam:profile:view', 'fleet-insights:read']));

    const pat = await personToken(api(), 'pat');
    const narrowed = { name: 'Webhook tools', permissions: ['webhook-tools:use'], requestedClientPermissions: ['device-overview:view'] };
    expect((await sendJson('PUT', `${api()}/api/apps/webhook-tools/definition`, pat, narrowed)).status).toBe(200);
    const emptied = { name: 'Fleet insights', permissions: [], requestedClientPermissions: [] };
    expect((await sendJson('PUT', `${api()}/api/apps/fleet-insights/definition`, pat, emptied)).status).toBe(200);

    expect(await permissionsAt(olivia, 1)).toEqual(before);
  });

  it('grow with a permission a definition names for the first time, and keep it after the definition drops it', async () => {
    const pat = await personToken(api(), 'pat');
    const olivia = await personToken(api(), 'olivia');
    const widened = { name: 'Fleet insights', permissions: ['fleet-insights:read', 'fleet-insights:export'], requestedClientPermissions: [] };
    expect((await sendJson('PUT', `${api()}/api/apps/fleet-insights/definition`, pat, widened)).status).toBe(200);
    expect(await permissionsAt(olivia, 1)).toContain('fleet-insights:export');

    const narrowed = { ...widened, permissions: ['fleet-insights:read'] };
    expect((await sendJson('PUT', `${api()}/api/apps/fleet-insights/definition`, pat, narrowed)).status).toBe(200);
    expect(await permissionsAt(olivia, 1)).toContain('fleet-insights:export');
  });
});
