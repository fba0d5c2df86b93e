// A role assignment changes the roles of a company's existing members only: it never makes anyone
// a member, and an unknown user and a non-member get the same answer, so user ids cannot be probed.
import { startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { getJson, personToken, sendJson, startPlatform } from './harness.ts';

const running = startedForTests(() => startPlatform(), { per: 'test' });
const api = () => running().issuer;

const assign = (token: string, companyId: number, userId: string, roles: string[]) =>
  sendJson('PUT', `${api()}/api/companies/${companyId}/role-assignments/${userId}`, token, { roles });

describe('role assignments', () => {
  it('never make a person of another company a member, nor show them its legal documents', async () => {
    const bjorn = await personToken(api(), 'bjorn');
    const result = await assign(bjorn, 3, 'u-olivia', ['device-viewer']);
    expect(result).toEqual({ status: 404, body: { error: 'not_found', message: 'user u-olivia is not a member of company 3' } });

    const olivia = await personToken(api(), 'olivia');
    expect(((await getJson(`${api()}/api/companies`, olivia)).body as { id: number }[]).map((c) => c.id)).toEqual([1]);
    expect(((await getJson(`${api()}/api/me/legal-documents`, olivia)).body as { companyId: number }[]).map((d) => d.companyId)).toEqual([1]);
  });

  it('answer an unknown user exactly as a non-member', async () => {
    const bjorn = await personToken(api(), 'bjorn');
    const nonMember = await assign(bjorn, 3, 'u-vera', []);
    const unknown = await assign(bjorn, 3, 'u-nobody', []);
    expect(nonMember).toEqual({ status: 404, body: { error: 'not_found', message: 'user u-vera is not a member of company 3' } });
    expect(unknown).toEqual({ status: 404, body: { error: 'not_found', message: 'user u-nobody is not a member of company 3' } });
  });

  it("change an existing member's roles", async () => {
    const bjorn = await personToken(api(), 'bjorn');
    expect(await assign(bjorn, 3, 'u-oscar', ['device-operator'])).toEqual({
      status: 200,
      body: { companyId: 3, roles: ['device-operator'], isOwner: false },
    });
    const companies = ((await getJson(`${api()}/api/me`, await personToken(api(), 'oscar'))).body as { companies: { id: number; roles: string[] }[] })
      .companies;
    expect(companies.find((c) => c.id === 3)?.roles).toEqual(['device-operator']);
  });

  it('refuse a person without iam:roles:assign at the company before looking the user up', async () => {
    const vera = await personToken(api(), 'vera');
    expect(await assign(vera, 1, 'u-oscar', [])).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(await assign(vera, 1, 'u-nobody', [])).toMatchObject({ status: 403, body: { error: 'forbidden' } });
  });
});
