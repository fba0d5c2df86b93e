// The dev platform's state, built from the seed and changed by the administration endpoints.
// Permissions are computed from it on every request, so a change shows on the very next one.
import { hash } from 'node:crypto';
import type { Seed } from './seed.ts';

export type Company = Seed['companies'][number];
/** A platform role (`companyId: null`, the seed's), shared by every company, or a role of one company. */
export interface Role {
  readonly name: string;
  readonly permissions: readonly string[];
  readonly companyId: number | null;
}
export type User = Seed['users'][number];
export type Membership = User['memberships'][number];
export type App = Seed['apps'][number];
export type Installation = App['installations'][number];
export type OAuthClient = Seed['clients'][number];
export type Device = Seed['devices'][number];
export type LegalDocument = Seed['legalDocuments'][number];

export interface IdentityProvider {
  readonly id: string;
  readonly type: 'oidc' | 'saml';
  readonly issuer: string;
}

const tokenKey = (token: string) => hash('sha256', token, 'base64url');

export class World {
  readonly #companies: Map<number, Company>;
  readonly #platformRoles: Map<string, Role>;
  /** Company id, then role name: a company role is held and seen at its company only. */
  readonly #companyRoles = new Map<number, Map<string, Role>>();
  readonly #users: Map<string, User>;
  readonly #usersByName: Map<string, User>;
  readonly #usersByApiToken: Map<string, User>;
  readonly #apps: Map<string, App>;
  readonly #clients: Map<string, OAuthClient>;
  readonly #devices: Map<number, Device>;
  /** Company id, then document id: a document id names a document of one company only. */
  readonly #legalDocuments = new Map<number, Map<string, LegalDocument>>();
  readonly #identityProviders = new Map<number, IdentityProvider[]>();
  /**
   * Every permission the platform has known: the seed's, plus any a role or an app definition has
   * named since. It only grows, so that no edit of a definition takes a permission from owners.
   */
  readonly #catalog = new Set<string>();

  constructor(seed: Seed) {
    const copy = structuredClone(seed);
    this.#companies = new Map(copy.companies.map((c) => [c.id, c]));
    this.#platformRoles = new Map(copy.roles.map((r) => [r.name, { ...r, companyId: null }]));
    this.#users = new Map(copy.users.map((u) => [u.id, u]));
    this.#usersByName = new Map(copy.users.map((u) => [u.username, u]));
    this.#usersByApiToken = new Map(copy.users.flatMap((u) => u.apiTokens.map((t) => [tokenKey(t), u] as const)));
    this.#apps = new Map(copy.apps.map((a) => [a.clientId, a]));
    this.#clients = new Map(copy.clients.map((c) => [c.clientId, c]));
    this.#devices = new Map(copy.devices.map((d) => [d.id, d]));
    for (const document of copy.legalDocuments) this.publishLegalDocument(document);
    for (const role of copy.roles) this.#addToCatalog(role.permissions);
    for (const app of copy.apps) this.#addToCatalog([...app.permissions, ...app.requestedClientPermissions]);
  }

  #addToCatalog(permissions: readonly string[]): void {
    for (const permission of permissions) this.#catalog.add(permission);
  }

  company(id: number): Company | undefined {
    return this.#companies.get(id);
  }

  get companies(): readonly Company[] {
    return [...this.#companies.values()];
  }

  platformRole(name: string): Role | undefined {
    return this.#platformRoles.get(name);
  }

  /** The role a member of the company may hold by that name: a platform role or the company's own. */
  roleAt(name: string, companyId: number): Role | undefined {
    return this.#platformRoles.get(name) ?? this.#companyRoles.get(companyId)?.get(name);
  }

  /** The platform roles, then the roles of the given companies. */
  rolesAt(companyIds: readonly number[]): Role[] {
    return [...this.#platformRoles.values(), ...companyIds.flatMap((id) => [...(this.#companyRoles.get(id)?.values() ?? [])])];
  }

  user(id: string): User | undefined {
    return this.#users.get(id);
  }

  userByUsername(username: string): User | undefined {
    return this.#usersByName.get(username);
  }

  userByApiToken(token: string): User | undefined {
    return this.#usersByApiToken.get(tokenKey(token));
  }

  app(clientId: string): App | undefined {
    return this.#apps.get(clientId);
  }

  get apps(): readonly App[] {
    return [...this.#apps.values()];
  }

  client(clientId: string): OAuthClient | undefined {
    return this.#clients.get(clientId);
  }

  get clients(): readonly OAuthClient[] {
    return [...this.#clients.values()];
  }

  device(id: number): Device | undefined {
    return this.#devices.get(id);
  }

  devicesOf(companyId: number): Device[] {
    return [...this.#devices.values()].filter((d) => d.companyId === companyId);
  }

  legalDocumentsOf(companyId: number): LegalDocument[] {
    return [...(this.#legalDocuments.get(companyId)?.values() ?? [])];
  }

  identityProvidersOf(companyId: number): readonly IdentityProvider[] {
    return this.#identityProviders.get(companyId) ?? [];
  }

  membership(user: User, companyId: number): Membership | undefined {
    return user.memberships.find((m) => m.companyId === companyId);
  }

  installation(app: App, companyId: number): Installation | undefined {
    return app.installations.find((i) => i.companyId === companyId);
  }

  /** Every permission the platform has ever known: what an owner holds with their own token. */
  catalog(): ReadonlySet<string> {
    return this.#catalog;
  }

  // ---- changes made through the administration endpoints ----

  /** Sets the permissions of an existing platform role, for every company at once. */
  putPlatformRole(name: string, permissions: readonly string[]): Role {
    // Platform roles are the seed's: a new role belongs to one company.
    if (!this.#platformRoles.has(name)) throw new Error(`${name} is no platform role`);
    const role = { name, permissions: [...new Set(permissions)], companyId: null };
    this.#addToCatalog(role.permissions);
    this.#platformRoles.set(name, role);
    return role;
  }

  /** Creates or changes a role of one company; its name must not be a platform role's. */
  putCompanyRole(companyId: number, name: string, permissions: readonly string[]): Role {
    if (this.#platformRoles.has(name)) throw new Error(`${name} is a platform role`);
    const role = { name, permissions: [...new Set(permissions)], companyId };
    this.#addToCatalog(role.permissions);
    let roles = this.#companyRoles.get(companyId);
    if (!roles) {
      roles = new Map();
      this.#companyRoles.set(companyId, roles);
    }
    roles.set(name, role);
    return role;
  }

  /** Changes the roles of an existing member: an assignment never makes anyone a member. */
  assignRoles(membership: Membership, roles: readonly string[]): Membership {
    membership.roles = [...new Set(roles)];
    return membership;
  }

  setConsent(installation: Installation, permissions: readonly string[]): void {
    installation.consentedPermissions = [...new Set(permissions)];
  }

  install(app: App, companyId: number): Installation {
    const existing = this.installation(app, companyId);
    if (existing) return existing;
    const installation = { companyId, consentedPermissions: [] };
    app.installations.push(installation);
    return installation;
  }

  uninstall(app: App, companyId: number): boolean {
    const before = app.installations.length;
    app.installations = app.installations.filter((i) => i.companyId !== companyId);
    return app.installations.length !== before;
  }

  defineApp(app: App, definition: Pick<App, 'name' | 'permissions' | 'requestedClientPermissions'>): void {
    app.name = definition.name;
    app.permissions = [...definition.permissions];
    app.requestedClientPermissions = [...definition.requestedClientPermissions];
    this.#addToCatalog([...app.permissions, ...app.requestedClientPermissions]);
    // Consent can only cover what the app still requests.
    for (const installation of app.installations) {
      installation.consentedPermissions = installation.consentedPermissions.filter((p) => app.requestedClientPermissions.includes(p));
    }
  }

  /** Adds an app registered while the platform runs (PUT /dev/apps), or replaces one registered so before. */
  putApp(app: App): void {
    this.#apps.set(app.clientId, app);
    this.#addToCatalog([...app.permissions, ...app.requestedClientPermissions]);
  }

  setAvailability(app: App, available: boolean): void {
    app.available = available;
  }

  setIdentityProviders(companyId: number, providers: readonly IdentityProvider[]): void {
    this.#identityProviders.set(companyId, [...providers]);
  }

  /** Publishes a new document or a new version of one of the same company's; another company's is never touched. */
  publishLegalDocument(document: LegalDocument): void {
    let documents = this.#legalDocuments.get(document.companyId);
    if (!documents) {
      documents = new Map();
      this.#legalDocuments.set(document.companyId, documents);
    }
    documents.set(document.id, document);
  }
}
