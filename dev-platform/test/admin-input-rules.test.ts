// Administration inputs keep the platform's input rules: web addresses are absolute http(s) without
// user information, and ids, titles and names hold no control character; 400 naming the field.
import { startedForTests } from '@platform/tool-sdk/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { personToken, seedWithPlatformAdministrator, sendJson, startPlatform } from './harness.ts';

const running = startedForTests(() => startPlatform({ seed: seedWithPlatformAdministrator() }));
let owner: string;
let platformAdministrator: string;
beforeAll(async () => {
  owner = await personToken(running().issuer, 'olivia');
  platformAdministrator = await personToken(running().issuer, 'pat');
});

const publish = (body: Record<string, string>) =>
  sendJson('POST', `${running().issuer}/api/companies/1/legal-documents`, owner, {
    id: 'terms',
    title: 'Terms',
    version: '1',
    url: 'https://legal.acme.example/terms',
    ...body,
  });
const setProviders = (provider: Record<string, string>) =>
  sendJson('PUT', `${running().issuer}/api/companies/1/identity-providers`, owner, {
    providers: [{ id: 'acme-sso', type: 'oidc', issuer: 'https://sso.acme.example', ...provider }],
  });

describe('publishing a legal document', () => {
  it.each([
    ['a javascript: url', { url: 'javascript:alert(1)' }, 'url'],
    ['a data: url', { url: 'data:text/html,<script>alert(1)</script>' }, 'url'],
    ['an ftp url', { url: 'ftp://legal.acme.example/terms' }, 'url'],
    ['a relative url', { url: '/terms' }, 'url'],
    ['a url without slashes after the scheme', { url: 'https:legal.acme.example/terms' }, 'url'],
    ['a url with user information', { url: 'https://admin:secret@legal.acme.example/terms' }, 'url'],
    ['a url with an empty user information', { url: 'https://@legal.acme.example/terms' }, 'url'],
    ['a url with a line break', { url: 'https://legal.acme\n.example/terms' }, 'url'],
    ['a url with a space', { url: 'https://legal.acme.example/terms of use' }, 'url'],
    ['an id with NUL', { id: 'terms\u0000' }, 'id'],
    ['a title with BEL', { title: 'Terms\u0007' }, 'title'],
    ['a title with DEL', { title: 'Terms\u007f' }, 'title'],
    ['a title with a C1 control (NEL)', { title: 'Terms\u0085' }, 'title'],
    ['a version with ESC', { version: '1\u001b[31m' }, 'version'],
  ])('refuses %s with 400 naming the field', async (_case, body, field) => {
    const result = await publish(body);
    expect(result).toMatchObject({ status: 400, body: { error: 'invalid_request', message: expect.stringMatching(new RegExp(`^${field}: `)) as unknown } });
    expect(JSON.stringify(result.body)).not.toContain('secret');
  });

  it('accepts an http or https url and a title in any script', async () => {
    expect((await publish({ title: 'Conditions générales — 利用規約', url: 'http://legal.acme.example/terms?v=1#top' })).status).toBe(201);
    expect((await publish({ url: 'HTTPS://legal.acme.example:8443/terms' })).status).toBe(201);
  });
});

describe('setting identity providers', () => {
  it.each([
    ['an issuer with user information', { issuer: 'https://user@sso.acme.example' }, 'providers.0.issuer'],
    ['a javascript: issuer', { issuer: 'javascript:alert(1)' }, 'providers.0.issuer'],
    ['an id with NUL', { id: 'acme\u0000sso' }, 'providers.0.id'],
    ['an id with a C1 control', { id: 'acme\u009bsso' }, 'providers.0.id'],
  ])('refuses %s with 400 naming the field', async (_case, provider, field) => {
    const result = await setProviders(provider);
    expect(result).toMatchObject({ status: 400, body: { error: 'invalid_request', message: expect.stringContaining(`${field}: `) as unknown } });
  });

  it('accepts an https issuer', async () => {
    expect((await setProviders({})).status).toBe(200);
  });
});

describe("defining an app's name", () => {
  it('refuses a name with a control character, naming the field', async () => {
    // An app's definition is its publisher's: a platform administrator's call.
    const result = await sendJson('PUT', `${running().issuer}/api/apps/fleet-insights/definition`, platformAdministrator, {
      name: 'Fleet\u0000insights',
      permissions: ['fleet-insights:read'],
      requestedClientPermissions: ['device-overview:view'],
    });
    expect(result).toMatchObject({ status: 400, body: { error: 'invalid_request', message: expect.stringMatching(/^name: /) as unknown } });
  });
});
