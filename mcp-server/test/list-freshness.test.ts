// What tools/list shows follows a revoked permission as fast as calls do: once a person's role is
// removed at the platform (vera's, a viewer of company 1 only), the tools that need it leave their list, and whoami stops showing it,
// within the stated bound (listPermissionsMaxAgeSeconds, 2 s, plus a round trip), on both
// revisions, without waiting for the 60 s caller cache and without a list_changed notification.
import { personToken, sendJson } from '@platform/dev-platform/testing';
import { describe, expect, it } from 'vitest';
import { listPermissionsMaxAgeSeconds } from '../src/mcp-gateway.ts';
import { eras, stackForTests, until } from './harness.ts';

// Each test revokes a role: a platform of its own.
const stack = stackForTests({}, 'test');
/** The stated bound, and the slack of a busy machine's round trips. */
const statedMs = listPermissionsMaxAgeSeconds * 1000 + 1_000;

interface WhoamiAnswer {
  readonly companies: readonly { readonly id: number; readonly permissions: readonly string[] }[];
}

describe.each(eras)('on the %s revision', (era) => {
  it('drops a tool from tools/list, and the permission from whoami, within the stated time of the role being removed', async () => {
    const client = await stack().connect('vera', era);
    const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
    const permissionsAtCompany1 = async () => {
      const answer = await client.callTool({ name: 'whoami', arguments: {} });
      return (answer.structuredContent as WhoamiAnswer | undefined)?.companies.find((company) => company.id === 1)?.permissions ?? [];
    };
    expect(await names()).toContain('list_webhooks');
    expect(await permissionsAtCompany1()).toContain('device-overview:view');

    const olivia = await personToken(stack().issuer, 'olivia');
    const removed = await sendJson('PUT', `${stack().issuer}/api/companies/1/role-assignments/u-vera`, olivia, { roles: [] });
    expect(removed.status).toBe(200);
    const revokedAt = Date.now();

    await until(async () => !(await names()).includes('list_webhooks'), 'list_webhooks left the list', statedMs);
    const listedFor = Date.now() - revokedAt;
    await until(async () => !(await permissionsAtCompany1()).includes('device-overview:view'), 'whoami stopped showing the permission', statedMs);
    expect(listedFor).toBeLessThanOrEqual(statedMs);
    // Tools that need nothing stay.
    expect(await names()).toContain('whoami');
  });
});
