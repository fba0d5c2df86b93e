// The service's tools served for real on loopback, as the gateway calls them, against the SDK's
// stand-in platform (@platform/tool-sdk/testing): the call context holds the caller's permissions,
// narrowed by the platform to the person's and the app's, and the declared permission is enforced.
import { toolClient } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { permissionTools } from '../src/permissions.tools.ts';
import { servedForTests } from './served-tools.ts';

const { served, stageCaller } = servedForTests(permissionTools);

/** The caller's companies: an operator at Acme; the owner of Acme Field, with no permission there. */
const companies = [
  { id: 1, name: 'Acme', isOwner: false, roles: ['operator'], permissions: ['device-overview:view', 'device-overview:manage'] },
  { id: 2, name: 'Acme Field', isOwner: true, roles: [], permissions: [] },
];

describe('my_permissions', () => {
  it("answers with the caller's narrowed permissions at the company", async () => {
    stageCaller('token-a', companies);
    const client = toolClient(served().address);
    try {
      const answer = await client.call('my_permissions', { companyId: 1 }, 'token-a');
      expect(answer).toMatchObject({
        ok: true,
        isError: false,
        result: { companyId: 1, permissions: ['device-overview:manage', 'device-overview:view'], mayManageDevices: true },
      });
    } finally {
      client.close();
    }
  });

  it('refuses a company where the caller may not view devices, owner or not', async () => {
    stageCaller('token-b', companies);
    const client = toolClient(served().address);
    try {
      expect(await client.call('my_permissions', { companyId: 2 }, 'token-b')).toMatchObject({ ok: false, codeName: 'PERMISSION_DENIED' });
    } finally {
      client.close();
    }
  });
});
