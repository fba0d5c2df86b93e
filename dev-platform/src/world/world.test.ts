import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { devSecrets } from '../../test/dev-env.ts';
import { loadSeedFile } from './seed.ts';
import { World } from './world.ts';

function world(): World {
  return new World(loadSeedFile(resolve(import.meta.dirname, '../../seed.json'), devSecrets));
}

describe("the world's catalog of permissions", () => {
  it("starts with every permission the seed's roles and apps name", () => {
    expect([...world().catalog()].sort()).toEqual([
      'apps:consent',
      'apps:install',
      'apps:manage',
      'device-overview:manage',
      'device-overview:view',
      'fleet-insights:read',
      'iam:idp:manage',
      'iam:profile:view',
      'iam:roles:assign',
      'iam:roles:manage',
      'legal:publish',
      'webhook-tools:use',
    ]);
  });

  it('never loses a permission when a role or an app stops naming it', () => {
    const w = world();
    const before = [...w.catalog()].sort();
    w.putPlatformRole('company-admin', []);
    w.putCompanyRole(3, 'auditor', ['device-overview:view']);
    w.putCompanyRole(3, 'auditor', []);
    const app = w.app('webhook-tools');
    if (!app) throw new Error('webhook-tools');
    w.defineApp(app, { name: 'Webhook tools', permissions: [], requestedClientPermissions: [] });
    expect([...w.catalog()].sort()).toEqual(before);
  });

  it('grows with a permission a role or an app names for the first time', () => {
    const w = world();
    w.putCompanyRole(3, 'auditor', ['reports:export']);
    const app = w.app('fleet-insights');
    if (!app) throw new Error('fleet-insights');
    w.defineApp(app, { name: 'Fleet insights', permissions: ['fleet-insights:export'], requestedClientPermissions: ['reports:view'] });
    expect([...w.catalog()]).toEqual(expect.arrayContaining(['reports:export', 'fleet-insights:export', 'reports:view']));
  });
});

describe('roles', () => {
  it("resolve a name at a company to a platform role or that company's own role only", () => {
    const w = world();
    w.putCompanyRole(1, 'auditor', ['device-overview:view']);
    expect(w.roleAt('auditor', 1)).toEqual({ name: 'auditor', permissions: ['device-overview:view'], companyId: 1 });
    expect(w.roleAt('auditor', 3)).toBeUndefined();
    expect(w.roleAt('device-viewer', 3)).toMatchObject({ companyId: null });
  });

  it('never let a company role take a platform role’s name, nor a new role become a platform role', () => {
    expect(() => world().putCompanyRole(3, 'device-viewer', [])).toThrow('device-viewer is a platform role');
    expect(() => world().putPlatformRole('auditor', [])).toThrow('auditor is no platform role');
  });
});
