// Who may do what where. A person's own token: the person's roles, and every permission for an
// owner. A delegated token: only companies where the app is installed, and there the person's
// roles intersected with the app's set (consented permissions plus its own namespace); no owner
// wildcard, no roles shown.
import type { MeAnswer } from '@platform/tool-sdk/internal';
import type { App, Company, User, World } from './world.ts';

export type Principal =
  | { readonly kind: 'person'; readonly user: User }
  | { readonly kind: 'delegated'; readonly user: User; readonly app: App }
  | { readonly kind: 'app'; readonly app: App };

/** GET /api/me's answer: the SDK's schema of it is the contract both sides keep. */
export type MeView = MeAnswer;

function rolePermissions(world: World, user: User, companyId: number): Set<string> {
  const granted = new Set<string>();
  for (const name of world.membership(user, companyId)?.roles ?? []) {
    for (const permission of world.roleAt(name, companyId)?.permissions ?? []) granted.add(permission);
  }
  return granted;
}

/** The app's set at a company: consented platform permissions plus its own namespace; undefined when not installed. */
function appPermissions(world: World, app: App, companyId: number): ReadonlySet<string> | undefined {
  const installation = world.installation(app, companyId);
  if (!installation || app.appKey === null) return undefined;
  return new Set([...installation.consentedPermissions, ...app.permissions.filter((p) => p.startsWith(`${app.appKey}:`))]);
}

/** The companies a principal can see. */
export function visibleCompanies(world: World, principal: Principal): Company[] {
  if (principal.kind === 'app') {
    return principal.app.installations.flatMap((i) => world.company(i.companyId) ?? []);
  }
  const companies = principal.user.memberships.flatMap((m) => world.company(m.companyId) ?? []);
  return principal.kind === 'person' ? companies : companies.filter((c) => world.installation(principal.app, c.id) !== undefined);
}

/** What the principal may do at a company (empty where it cannot see the company). */
export function permissionsAt(world: World, principal: Principal, companyId: number): ReadonlySet<string> {
  switch (principal.kind) {
    case 'person': {
      const membership = world.membership(principal.user, companyId);
      if (!membership) return new Set();
      return membership.isOwner ? world.catalog() : rolePermissions(world, principal.user, companyId);
    }
    case 'delegated': {
      if (!world.membership(principal.user, companyId)) return new Set();
      const app = appPermissions(world, principal.app, companyId);
      if (!app) return new Set();
      // No owner wildcard under delegation: only what the person's roles grant.
      return new Set([...rolePermissions(world, principal.user, companyId)].filter((p) => app.has(p)));
    }
    case 'app':
      return appPermissions(world, principal.app, companyId) ?? new Set();
  }
}

export function may(world: World, principal: Principal, permission: string, companyId: number): boolean {
  return permissionsAt(world, principal, companyId).has(permission);
}

/** GET /api/me for a person or a delegated call. */
export function meView(world: World, principal: Exclude<Principal, { kind: 'app' }>, audience: readonly string[]): MeView {
  const delegated = principal.kind === 'delegated';
  return {
    id: principal.user.id,
    audience: [...audience],
    ...(principal.kind === 'delegated' && { actor: { clientId: principal.app.clientId } }),
    companies: visibleCompanies(world, principal).map((company) => {
      const membership = world.membership(principal.user, company.id);
      return {
        id: company.id,
        name: company.name,
        isOwner: delegated ? false : (membership?.isOwner ?? false),
        roles: delegated ? [] : [...(membership?.roles ?? [])],
        permissions: [...permissionsAt(world, principal, company.id)].sort(),
      };
    }),
  };
}

/** Whether an app may read the person's profile: consented to iam:profile:view at a company it can reach. */
export function mayReadProfile(world: World, principal: Exclude<Principal, { kind: 'app' }>): boolean {
  if (principal.kind === 'person') return true;
  return visibleCompanies(world, principal).some((company) => world.installation(principal.app, company.id)?.consentedPermissions.includes('iam:profile:view'));
}
