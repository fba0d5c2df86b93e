// Roles and app definitions are shared by every company that uses them: a change needs the right
// at every company it affects, so one tenant's administrator never changes what another may do.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { delegatedToken, getJson, personToken, sendJson, startPlatform, type RunningPlatform } from './harness.ts';

let running: RunningPlatform;
let api: string;
beforeEach(async () => {
  running = await startPlatform();
  api = running.issuer;
});
afterEach(async () => {
  await running.close();
});

const permissionsAt = async (token: string, companyId: number) =>
  ((await getJson(`${api}/api/me`, token)).body as { companies: { id: number; permissions: string[] }[] }).companies.find((c) => c.id === companyId)
    ?.permissions;

describe('roles, which every company shares', () => {
  it('refuses an admin of one company a change to a role held at companies where they are not admin, naming them', async () => {
    const bjorn = await personToken(api, 'bjorn');
    const oscarAtAcme = await personToken(api, 'oscar');
    const before = await permissionsAt(oscarAtAcme, 1);

    const wiped = await sendJson('PUT', `${api}/api/roles/device-operator`, bjorn, { permissions: [] });
    expect(wiped).toMatchObject({ status: 403, body: { error: 'forbidden', message: expect.stringMatching(/iam:roles:manage.*\b1\b.*\b2\b/) as unknown } });
    const widened = await sendJson('PUT', `${api}/api/roles/device-viewer`, bjorn, { permissions: ['device-overview:view', 'device-overview:manage'] });
    expect(widened).toMatchObject({ status: 403, body: { error: 'forbidden', message: expect.stringContaining('iam:roles:manage') as unknown } });

    expect(await permissionsAt(oscarAtAcme, 1)).toEqual(before);
    expect(((await getJson(`${api}/api/roles`, bjorn)).body as { name: string; permissions: string[] }[]).find((r) => r.name === 'device-viewer')).toEqual({
      name: 'device-viewer',
      permissions: ['device-overview:view', 'webhook-tools:use'],
    });
  });

  it('lets an admin change a role held only where they hold the right, and create a new one', async () => {
    const bjorn = await personToken(api, 'bjorn');
    // company-admin is held at Borealis alone.
    expect((await sendJson('PUT', `${api}/api/roles/company-admin`, bjorn, { permissions: ['iam:roles:manage', 'legal:publish'] })).status).toBe(200);
    expect(await sendJson('PUT', `${api}/api/roles/borealis-auditor`, bjorn, { permissions: ['device-overview:view'] })).toMatchObject({
      status: 200,
      body: { name: 'borealis-auditor', permissions: ['device-overview:view'] },
    });
    const olivia = await personToken(api, 'olivia');
    // device-viewer is held at Acme (vera) and at Borealis (oscar): the owner of Acme alone may not change it.
    expect((await sendJson('PUT', `${api}/api/roles/device-viewer`, olivia, { permissions: ['device-overview:view'] })).status).toBe(403);
  });

  it('refuses a role change to a person who holds the right nowhere', async () => {
    const vera = await personToken(api, 'vera');
    expect(await sendJson('PUT', `${api}/api/roles/fresh-role`, vera, { permissions: [] })).toMatchObject({ status: 403, body: { error: 'forbidden' } });
  });
});

describe('app definitions, which every installing company shares', () => {
  const webhookToolsDefinition = { name: 'Webhook tools', permissions: ['webhook-tools:use'], requestedClientPermissions: ['device-overview:view'] };

  it("refuses an admin of a company where the app is not installed a change to the app's definition, keeping the installers' consent", async () => {
    const bjorn = await personToken(api, 'bjorn');
    const result = await sendJson('PUT', `${api}/api/apps/webhook-tools/definition`, bjorn, webhookToolsDefinition);
    expect(result).toMatchObject({ status: 403, body: { error: 'forbidden', message: expect.stringMatching(/apps:manage.*\b1\b.*\b2\b/) as unknown } });
    expect(await permissionsAt(await delegatedToken(api, 'oscar'), 1)).toEqual(['device-overview:manage', 'device-overview:view', 'webhook-tools:use']);
  });

  it("refuses an admin of a company where the app is not installed a change to the app's availability", async () => {
    const bjorn = await personToken(api, 'bjorn');
    const result = await sendJson('PUT', `${api}/api/apps/webhook-tools/availability`, bjorn, { available: false });
    expect(result).toMatchObject({ status: 403, body: { error: 'forbidden', message: expect.stringContaining('apps:manage') as unknown } });
    // Still available: Borealis can install it.
    expect((await sendJson('PUT', `${api}/api/companies/3/apps/webhook-tools/installation`, bjorn, {})).status).toBe(200);
  });

  it('refuses the owner of one installing company when the app is installed at another too', async () => {
    const olivia = await personToken(api, 'olivia');
    const result = await sendJson('PUT', `${api}/api/apps/webhook-tools/definition`, olivia, webhookToolsDefinition);
    expect(result).toMatchObject({ status: 403, body: { error: 'forbidden', message: expect.stringContaining('company 2') as unknown } });
  });

  it('lets the owner of every installing company change the definition and the availability', async () => {
    const olivia = await personToken(api, 'olivia');
    const definition = { name: 'Fleet', permissions: ['fleet-insights:read'], requestedClientPermissions: [] };
    expect(await sendJson('PUT', `${api}/api/apps/fleet-insights/definition`, olivia, definition)).toMatchObject({ status: 200, body: definition });
    expect(await sendJson('PUT', `${api}/api/apps/fleet-insights/availability`, olivia, { available: false })).toMatchObject({
      status: 200,
      body: { clientId: 'fleet-insights', available: false },
    });
  });

  it('stays delegation_forbidden under delegation', async () => {
    const delegated = await delegatedToken(api, 'oscar');
    expect(await sendJson('PUT', `${api}/api/apps/webhook-tools/availability`, delegated, { available: false })).toMatchObject({
      status: 403,
      body: { error: 'delegation_forbidden' },
    });
  });
});
