import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { devSecrets } from '../test/dev-env.ts';
import { loadSeedFile } from './seed.ts';
import { World } from './world.ts';

function world(): World {
  return new World(loadSeedFile(resolve(import.meta.dirname, '../seed.json'), devSecrets));
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
    w.putRole('company-admin', []);
    const app = w.app('webhook-tools');
    if (!app) throw new Error('webhook-tools');
    w.defineApp(app, { name: 'Webhook tools', permissions: [], requestedClientPermissions: [] });
    expect([...w.catalog()].sort()).toEqual(before);
  });

  it('grows with a permission a role or an app names for the first time', () => {
    const w = world();
    w.putRole('company-admin', ['reports:export']);
    const app = w.app('fleet-insights');
    if (!app) throw new Error('fleet-insights');
    w.defineApp(app, { name: 'Fleet insights', permissions: ['fleet-insights:export'], requestedClientPermissions: ['reports:view'] });
    expect([...w.catalog()]).toEqual(expect.arrayContaining(['reports:export', 'fleet-insights:export', 'reports:view']));
  });
});
