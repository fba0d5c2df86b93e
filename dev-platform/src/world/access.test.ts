import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { devSecrets } from '../../test/dev-env.ts';
import { meView, may, mayReadProfile, permissionsAt, type Principal } from './access.ts';
import { loadSeedFile } from './seed.ts';
import { World } from './world.ts';

const api = 'http://127.0.0.1:4000';

function world(): World {
  return new World(loadSeedFile(resolve(import.meta.dirname, '../../seed.json'), devSecrets));
}

function person(w: World, username: string): Principal & { kind: 'person' } {
  const user = w.userByUsername(username);
  if (!user) throw new Error(username);
  return { kind: 'person', user };
}

function delegated(w: World, username: string, clientId = 'webhook-tools'): Principal & { kind: 'delegated' } {
  const app = w.app(clientId);
  if (!app) throw new Error(clientId);
  return { kind: 'delegated', user: person(w, username).user, app };
}

describe('access', () => {
  it("gives a person's own token the person's roles, and an owner every permission", () => {
    const w = world();
    expect([...permissionsAt(w, person(w, 'oscar'), 1)].sort()).toEqual(['device-overview:manage', 'device-overview:view', 'webhook-tools:use']);
    expect(may(w, person(w, 'olivia'), 'iam:roles:assign', 1)).toBe(true);
    expect(may(w, person(w, 'olivia'), 'device-overview:manage', 3)).toBe(false);
  });

  it('narrows a delegated call to person ∩ (consented ∪ own namespace)', () => {
    const w = world();
    expect([...permissionsAt(w, delegated(w, 'oscar'), 1)].sort()).toEqual(['device-overview:manage', 'device-overview:view', 'webhook-tools:use']);
    // At company 2 only view is consented: the operator's manage right does not pass.
    expect([...permissionsAt(w, delegated(w, 'oscar'), 2)].sort()).toEqual(['device-overview:view', 'webhook-tools:use']);
  });

  it('gives an owner no wildcard under delegation', () => {
    const w = world();
    expect(permissionsAt(w, delegated(w, 'olivia'), 1).size).toBe(0);
    const me = meView(w, delegated(w, 'olivia'), [api]);
    expect(me.companies).toEqual([{ id: 1, name: 'Acme Telemetry', isOwner: false, roles: [], permissions: [] }]);
  });

  it('refuses what the app requested but was not consented', () => {
    const w = world();
    // fleet-insights requests device-overview:view but has no consent at company 1.
    expect(may(w, delegated(w, 'oscar', 'fleet-insights'), 'device-overview:view', 1)).toBe(false);
  });

  it('shows only companies where the app is installed, with isOwner false and no roles', () => {
    const w = world();
    const me = meView(w, delegated(w, 'oscar'), [api]);
    expect(me).toMatchObject({ audience: [api], actor: { clientId: 'webhook-tools' } });
    expect(me.companies.map((c) => c.id)).toEqual([1, 2]);
    expect(me.companies.every((c) => !c.isOwner && c.roles.length === 0)).toBe(true);
    expect(meView(w, person(w, 'oscar'), [api]).companies.map((c) => c.id)).toEqual([1, 2, 3]);
    expect(meView(w, person(w, 'oscar'), [api])).not.toHaveProperty('actor');
  });

  it('lets an app read the profile only with consent to iam:profile:view', () => {
    const w = world();
    expect(mayReadProfile(w, delegated(w, 'oscar'))).toBe(true);
    expect(mayReadProfile(w, delegated(w, 'oscar', 'fleet-insights'))).toBe(false);
  });

  it('applies a withdrawn consent and a changed role at once', () => {
    const w = world();
    const call = delegated(w, 'oscar');
    const installation = w.installation(call.app, 1);
    if (!installation) throw new Error('not installed');
    w.setConsent(installation, ['device-overview:view']);
    expect(may(w, call, 'device-overview:manage', 1)).toBe(false);
    const membership = w.membership(call.user, 1);
    if (!membership) throw new Error('not a member');
    w.assignRoles(membership, []);
    expect(may(w, call, 'device-overview:view', 1)).toBe(false);
  });
});
