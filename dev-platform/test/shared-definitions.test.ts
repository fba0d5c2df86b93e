// Who may change what several companies share. The seed's roles are platform roles and an app's
// definition and availability are its publisher's: only a platform administrator (the right at
// every company of the platform) changes them. A new role belongs to one company: only that
// company's role managers edit it, and it is assigned there only. No tenant can lock another out.
import { startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { delegatedToken, getJson, personToken, seedWithPlatformAdministrator, sendJson, startPlatform } from './harness.ts';

// The default seed plus pat, a platform administrator: nobody else is one.
const running = startedForTests(() => startPlatform({ seed: seedWithPlatformAdministrator() }), { per: 'test' });
const api = () => running().issuer;

interface RoleView {
  name: string;
  permissions: string[];
  companyId: number | null;
}

const permissionsAt = async (token: string, companyId: number) =>
  ((await getJson(`${api()}/api/me`, token)).body as { companies: { id: number; permissions: string[] }[] }).companies.find((c) => c.id === companyId)
    ?.permissions;
const putRole = (token: string, name: string, body: Record<string, unknown>) => sendJson('PUT', `${api()}/api/roles/${name}`, token, body);
const assign = (token: string, companyId: number, userId: string, roles: string[]) =>
  sendJson('PUT', `${api()}/api/companies/${companyId}/role-assignments/${userId}`, token, { roles });
const rolesSeenBy = async (token: string) => (await getJson(`${api()}/api/roles`, token)).body as RoleView[];

describe('platform roles (the seed’s)', () => {
  it('refuses an admin of one company a change to a platform role held at other companies, without naming them', async () => {
    const bjorn = await personToken(api(), 'bjorn');
    const oscarAtAcme = await personToken(api(), 'oscar');
    const before = await permissionsAt(oscarAtAcme, 1);

    const wiped = await putRole(bjorn, 'device-operator', { permissions: [] });
    expect(wiped).toEqual({
      status: 403,
      body: { error: 'forbidden', message: 'iam:roles:manage is needed at every company of the platform: device-operator is a platform role' },
    });
    const widened = await putRole(bjorn, 'device-viewer', { permissions: ['device-overview:view', 'device-overview:manage'] });
    expect(widened).toMatchObject({ status: 403, body: { error: 'forbidden' } });

    expect(await permissionsAt(oscarAtAcme, 1)).toEqual(before);
    expect((await rolesSeenBy(bjorn)).find((r) => r.name === 'device-viewer')).toEqual({
      name: 'device-viewer',
      permissions: ['device-overview:view', 'webhook-tools:use'],
      companyId: null,
    });
  });

  it('refuses a company admin a change to a platform role even where only their company holds it', async () => {
    const bjorn = await personToken(api(), 'bjorn');
    // company-admin is held at Borealis alone; narrowing it would still change it for every company.
    expect(await putRole(bjorn, 'company-admin', { permissions: ['legal:publish'] })).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    const olivia = await personToken(api(), 'olivia');
    expect(await putRole(olivia, 'device-viewer', { permissions: ['device-overview:view'] })).toMatchObject({ status: 403, body: { error: 'forbidden' } });
  });

  it('lets a platform administrator change a platform role, for every company at once', async () => {
    const pat = await personToken(api(), 'pat');
    expect(await putRole(pat, 'device-viewer', { permissions: ['device-overview:view'] })).toEqual({
      status: 200,
      body: { name: 'device-viewer', permissions: ['device-overview:view'], companyId: null },
    });
    expect(await permissionsAt(await personToken(api(), 'vera'), 1)).toEqual(['device-overview:view']);
    expect(await permissionsAt(await personToken(api(), 'oscar'), 3)).toEqual(['device-overview:view']);
  });

  it('refuses a new role that names no company', async () => {
    for (const username of ['bjorn', 'pat']) {
      const result = await putRole(await personToken(api(), username), 'borealis-auditor', { permissions: ['device-overview:view'] });
      expect(result).toEqual({
        status: 400,
        body: { error: 'invalid_request', message: 'companyId: borealis-auditor is no platform role; a new role belongs to the company companyId names' },
      });
    }
  });

  it('refuses a role change to a person who holds the right nowhere', async () => {
    const vera = await personToken(api(), 'vera');
    expect(await putRole(vera, 'fresh-role', { permissions: [] })).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(await putRole(vera, 'fresh-role', { companyId: 1, permissions: [] })).toMatchObject({ status: 403, body: { error: 'forbidden' } });
  });
});

describe('company roles', () => {
  it("lets a company's role manager create a role for the company and assign it there", async () => {
    const bjorn = await personToken(api(), 'bjorn');
    expect(await putRole(bjorn, 'auditor', { companyId: 3, permissions: ['device-overview:view'] })).toEqual({
      status: 200,
      body: { name: 'auditor', permissions: ['device-overview:view'], companyId: 3 },
    });
    expect((await assign(bjorn, 3, 'u-oscar', ['auditor'])).status).toBe(200);
    const oscar = (await getJson(`${api()}/api/me`, await personToken(api(), 'oscar'))).body as {
      companies: { id: number; roles: string[]; permissions: string[] }[];
    };
    expect(oscar.companies.find((c) => c.id === 3)).toMatchObject({ roles: ['auditor'], permissions: ['device-overview:view'] });
  });

  it("keeps a company's role in its hands when another company tries to assign it", async () => {
    const olivia = await personToken(api(), 'olivia');
    expect((await putRole(olivia, 'acme-auditor', { companyId: 1, permissions: ['device-overview:view'] })).status).toBe(200);
    expect((await assign(olivia, 1, 'u-vera', ['acme-auditor'])).status).toBe(200);

    const bjorn = await personToken(api(), 'bjorn');
    expect(await assign(bjorn, 3, 'u-oscar', ['acme-auditor'])).toEqual({
      status: 400,
      body: { error: 'invalid_request', message: 'roles: role acme-auditor is not available at company 3' },
    });
    // Olivia still edits her role: Borealis holds none of it.
    expect(await putRole(olivia, 'acme-auditor', { companyId: 1, permissions: ['device-overview:view', 'device-overview:manage'] })).toMatchObject({
      status: 200,
    });
    expect(await permissionsAt(await personToken(api(), 'vera'), 1)).toEqual(['device-overview:manage', 'device-overview:view']);
  });

  it("lets only the company's role managers edit its role; another company's role of that name is its own", async () => {
    const olivia = await personToken(api(), 'olivia');
    expect((await putRole(olivia, 'auditor', { companyId: 1, permissions: ['device-overview:view'] })).status).toBe(200);
    expect((await assign(olivia, 1, 'u-vera', ['auditor'])).status).toBe(200);

    const bjorn = await personToken(api(), 'bjorn');
    expect(await putRole(bjorn, 'auditor', { companyId: 1, permissions: [] })).toEqual({
      status: 403,
      body: { error: 'forbidden', message: 'iam:roles:manage is needed at company 1' },
    });
    expect(await putRole(bjorn, 'auditor', { companyId: 3, permissions: ['device-overview:manage'] })).toMatchObject({
      status: 200,
      body: { companyId: 3 },
    });
    expect(await permissionsAt(await personToken(api(), 'vera'), 1)).toEqual(['device-overview:view']);
    // A platform administrator holds the right at company 1, as at every company.
    expect((await putRole(await personToken(api(), 'pat'), 'auditor', { companyId: 1, permissions: [] })).status).toBe(200);
  });

  it('refuses a company role named like a platform role', async () => {
    const bjorn = await personToken(api(), 'bjorn');
    expect(await putRole(bjorn, 'device-viewer', { companyId: 3, permissions: ['device-overview:view'] })).toEqual({
      status: 400,
      body: { error: 'invalid_request', message: 'name: device-viewer is a platform role; choose another name for a role of company 3' },
    });
  });

  it('refuses a company that does not exist', async () => {
    const pat = await personToken(api(), 'pat');
    expect(await putRole(pat, 'auditor', { companyId: 99, permissions: [] })).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });

  it("lists the platform roles and the roles of the caller's companies only", async () => {
    const olivia = await personToken(api(), 'olivia');
    const bjorn = await personToken(api(), 'bjorn');
    await putRole(olivia, 'acme-auditor', { companyId: 1, permissions: ['device-overview:view'] });
    await putRole(bjorn, 'borealis-auditor', { companyId: 3, permissions: ['device-overview:view'] });
    const platformRoles = ['company-admin', 'device-operator', 'device-viewer'];
    expect((await rolesSeenBy(bjorn)).map((r) => r.name)).toEqual([...platformRoles, 'borealis-auditor']);
    expect((await rolesSeenBy(olivia)).map((r) => r.name)).toEqual([...platformRoles, 'acme-auditor']);
    // Oscar is a member of both.
    expect((await rolesSeenBy(await personToken(api(), 'oscar'))).map((r) => r.name)).toEqual([...platformRoles, 'acme-auditor', 'borealis-auditor']);
  });
});

describe("apps' definitions and availability, their publisher's", () => {
  const webhookToolsDefinition = { name: 'Webhook tools', permissions: ['webhook-tools:use'], requestedClientPermissions: ['device-overview:view'] };
  const forbidden = {
    status: 403,
    body: { error: 'forbidden', message: "apps:manage is needed at every company of the platform: an app's definition and availability are its publisher's" },
  };

  it("refuses an admin of a company where the app is not installed a change to the app's definition, keeping the installers' consent", async () => {
    const bjorn = await personToken(api(), 'bjorn');
    expect(await sendJson('PUT', `${api()}/api/apps/webhook-tools/definition`, bjorn, webhookToolsDefinition)).toEqual(forbidden);
    expect(await permissionsAt(await delegatedToken(api(), 'oscar'), 1)).toEqual(['device-overview:manage', 'device-overview:view', 'webhook-tools:use']);
  });

  it("refuses an admin of a company where the app is not installed a change to the app's availability", async () => {
    const bjorn = await personToken(api(), 'bjorn');
    expect(await sendJson('PUT', `${api()}/api/apps/webhook-tools/availability`, bjorn, { available: false })).toEqual(forbidden);
    // Still available: Borealis can install it.
    expect((await sendJson('PUT', `${api()}/api/companies/3/apps/webhook-tools/installation`, bjorn, {})).status).toBe(200);
  });

  it('refuses the owner of the only company where the app is installed: installing gives no control over the app', async () => {
    const olivia = await personToken(api(), 'olivia');
    const definition = { name: 'Fleet', permissions: ['fleet-insights:read'], requestedClientPermissions: [] };
    expect(await sendJson('PUT', `${api()}/api/apps/fleet-insights/definition`, olivia, definition)).toEqual(forbidden);
    expect(await sendJson('PUT', `${api()}/api/apps/fleet-insights/availability`, olivia, { available: false })).toEqual(forbidden);
  });

  it('refuses a tenant a change to an app installed nowhere', async () => {
    const bjorn = await personToken(api(), 'bjorn');
    const definition = { name: 'Borealis sync', permissions: [], requestedClientPermissions: ['device-overview:manage'] };
    expect(await sendJson('PUT', `${api()}/api/apps/legacy-sync/definition`, bjorn, definition)).toEqual(forbidden);
    expect(await sendJson('PUT', `${api()}/api/apps/legacy-sync/availability`, bjorn, { available: true })).toEqual(forbidden);
  });

  it('answers an unknown app as a known one to a tenant, so app ids cannot be probed', async () => {
    const bjorn = await personToken(api(), 'bjorn');
    expect(await sendJson('PUT', `${api()}/api/apps/no-such-app/availability`, bjorn, { available: true })).toEqual(forbidden);
  });

  it("lets a platform administrator change an app's definition and availability, wherever it is installed", async () => {
    const bjorn = await personToken(api(), 'bjorn');
    expect((await sendJson('PUT', `${api()}/api/companies/3/apps/fleet-insights/installation`, bjorn, {})).status).toBe(200);
    const pat = await personToken(api(), 'pat');
    const definition = { name: 'Fleet', permissions: ['fleet-insights:read'], requestedClientPermissions: [] };
    expect(await sendJson('PUT', `${api()}/api/apps/fleet-insights/definition`, pat, definition)).toMatchObject({ status: 200, body: definition });
    expect(await sendJson('PUT', `${api()}/api/apps/fleet-insights/availability`, pat, { available: false })).toEqual({
      status: 200,
      body: { clientId: 'fleet-insights', available: false },
    });
  });

  it('stays delegation_forbidden under delegation', async () => {
    const delegated = await delegatedToken(api(), 'oscar');
    expect(await sendJson('PUT', `${api()}/api/apps/webhook-tools/availability`, delegated, { available: false })).toMatchObject({
      status: 403,
      body: { error: 'delegation_forbidden' },
    });
  });
});
