import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { thrownBy } from '@platform/devtools/thrown';
import { describe, expect, it } from 'vitest';
import { devSecrets } from '../../test/dev-env.ts';
import { loadSeedFile, parseSeed, SeedError } from './seed.ts';

const seedPath = resolve(import.meta.dirname, '../../seed.json');
const defaultSeed = () =>
  JSON.parse(readFileSync(seedPath, 'utf8')) as Record<string, unknown[]> & { users: Record<string, unknown>[]; apps: Record<string, unknown>[] };

const refusal = (json: unknown, env: Record<string, string> = devSecrets): string => thrownBy(() => parseSeed(json, env, 'seed.json'), SeedError).message;

describe('the seed', () => {
  it('loads the default seed with its secrets read from the environment', () => {
    const seed = loadSeedFile(seedPath, devSecrets);
    expect(seed.apps.find((a) => a.clientId === 'webhook-tools')?.clientSecret).toBe(devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET);
    expect(seed.users.find((u) => u.username === 'oscar')?.apiTokens).toEqual([devSecrets.DEV_API_TOKEN_OSCAR]);
  });

  it('names the variable of a secret that is not set', () => {
    const { MCP_GATEWAY_CLIENT_SECRET: _unset, ...env } = devSecrets;
    expect(refusal(defaultSeed(), env)).toContain('clients[0].clientSecret: environment variable MCP_GATEWAY_CLIENT_SECRET is not set');
  });

  it('refuses an extra field, naming it', () => {
    const seed = defaultSeed();
    seed.users[1] = { ...seed.users[1], nickname: 'oz' };
    expect(refusal(seed)).toMatch(/users\[1\].*nickname/);
  });

  it('refuses a wrong type, naming the field', () => {
    const seed = defaultSeed();
    seed.apps[0] = { ...seed.apps[0], available: 'yes' };
    expect(refusal(seed)).toContain('apps[0].available');
  });

  it('refuses a membership of an unknown company and an unknown role', () => {
    const seed = defaultSeed();
    seed.users[2] = { ...seed.users[2], memberships: [{ companyId: 99, roles: ['astronaut'], isOwner: false }] };
    const message = refusal(seed);
    expect(message).toContain('users[2].memberships[0].companyId: no company 99');
    expect(message).toContain('users[2].memberships[0].roles[0]: no role astronaut');
  });

  it('refuses consent to a permission the app does not request', () => {
    const seed = defaultSeed();
    seed.apps[1] = { ...seed.apps[1], installations: [{ companyId: 1, consentedPermissions: ['device-overview:manage'] }] };
    expect(refusal(seed)).toContain('apps[1].installations[0].consentedPermissions[0]: device-overview:manage is not in requestedClientPermissions');
  });

  it("refuses a manifest permission outside the app's namespace", () => {
    const seed = defaultSeed();
    seed.apps[0] = { ...seed.apps[0], permissions: ['device-overview:manage'] };
    expect(refusal(seed)).toContain("apps[0].permissions[0]: device-overview:manage is outside the app's own namespace webhook-tools:");
  });

  it('marks only webhook-tools a tool publisher, and refuses the mark on a client linked to no app', () => {
    const seed = loadSeedFile(seedPath, devSecrets);
    expect(seed.apps.filter((app) => app.toolPublisher).map((app) => app.clientId)).toEqual(['webhook-tools']);
    const edited = defaultSeed();
    edited.apps[2] = { ...edited.apps[2], toolPublisher: true };
    expect(refusal(edited)).toContain('apps[2].toolPublisher: a client linked to no app cannot publish tools');
  });

  it('refuses duplicate client ids and a legal document of a child company', () => {
    const seed = defaultSeed();
    seed.clients = [...(seed.clients ?? []), { clientId: 'webhook-tools', clientSecret: 'another-secret', name: 'dup', tokenExchange: false }];
    seed.legalDocuments = [{ id: 'x', companyId: 2, title: 't', version: '1', url: 'https://x.example/t' }];
    const message = refusal(seed);
    expect(message).toContain('clientId: webhook-tools appears twice');
    expect(message).toContain('legalDocuments[0].companyId: company 2 is not a root company');
  });

  it('refuses a legal document id twice in one company, and takes it once in each of two', () => {
    const seed = defaultSeed();
    const doc = { id: 'terms', title: 't', version: '1', url: 'https://x.example/t' };
    seed.legalDocuments = [
      { ...doc, companyId: 1 },
      { ...doc, companyId: 3 },
    ];
    expect(() => parseSeed(seed, devSecrets)).not.toThrow();
    seed.legalDocuments = [...seed.legalDocuments, { ...doc, companyId: 1, version: '2' }];
    expect(refusal(seed)).toContain('legalDocuments[].id: terms appears twice in company 1');
  });

  it('says when the file is missing or not JSON', () => {
    expect(() => loadSeedFile('/nonexistent/seed.json', devSecrets)).toThrow('/nonexistent/seed.json: cannot be read (ENOENT)');
  });
});
