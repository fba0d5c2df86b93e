// The dev platform's world as a JSON seed file: companies, roles, users, apps, OAuth clients,
// devices and legal documents. Validated strictly (an unknown field is an error) and cross-checked
// (every reference must resolve), with a message that names the file and the field.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export class SeedError extends Error {
  override readonly name = 'SeedError';
  readonly code = 'SEED_INVALID';
}

export type Environment = Readonly<Record<string, string | undefined>>;

const permission = z.string().regex(/^[a-z0-9-]+(:[a-z0-9-]+)+$/, 'must look like area:action, such as device-overview:view');
const id = z.number().int().positive();
const clientId = z.string().regex(/^[A-Za-z0-9._-]+$/, 'must be letters, digits, dot, dash or underscore');

/** The seed's schema; a secret is given literally or as `{ "env": "NAME" }`, read from `env` here. */
function seedSchema(env: Environment) {
  const secret = z
    .union([z.string().min(8, 'must be at least 8 characters'), z.strictObject({ env: z.string().regex(/^[A-Z][A-Z0-9_]*$/) })])
    .transform((value, ctx) => {
      if (typeof value === 'string') return value;
      const found = env[value.env];
      if (!found) ctx.addIssue({ code: 'custom', message: `environment variable ${value.env} is not set` });
      return found ?? '';
    });
  return z.strictObject({
    companies: z.array(z.strictObject({ id, name: z.string().min(1), parentId: id.nullable() })).min(1),
    roles: z.array(z.strictObject({ name: z.string().regex(/^[a-z0-9-]+$/), permissions: z.array(permission) })),
    users: z.array(
      z.strictObject({
        id: z.string().regex(/^[A-Za-z0-9-]+$/),
        username: z.string().regex(/^[a-z0-9.-]+$/),
        password: z.string().min(8),
        email: z.email(),
        apiTokens: z.array(secret),
        memberships: z.array(z.strictObject({ companyId: id, roles: z.array(z.string()), isOwner: z.boolean() })),
      }),
    ),
    apps: z.array(
      z.strictObject({
        appKey: z
          .string()
          .regex(/^[a-z0-9-]+$/)
          .nullable(),
        clientId,
        clientSecret: secret,
        name: z.string().min(1),
        permissions: z.array(permission),
        requestedClientPermissions: z.array(permission),
        available: z.boolean(),
        /** Whether the platform lets the app register tool services at an MCP gateway; absent is false. */
        toolPublisher: z.boolean().default(false),
        installations: z.array(z.strictObject({ companyId: id, consentedPermissions: z.array(permission) })),
      }),
    ),
    clients: z.array(z.strictObject({ clientId, clientSecret: secret, name: z.string().min(1), tokenExchange: z.boolean() })),
    devices: z.array(z.strictObject({ id, companyId: id, gatewayId: z.string().min(1), name: z.string().min(1) })),
    legalDocuments: z.array(z.strictObject({ id: z.string().min(1), companyId: id, title: z.string().min(1), version: z.string().min(1), url: z.url() })),
  });
}

/** A validated seed with every secret resolved to its value. */
export type Seed = z.output<ReturnType<typeof seedSchema>>;

export function loadSeedFile(path: string, env: Environment): Seed {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SeedError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SeedError(`${path}: not valid JSON (${(error as Error).message})`, { cause: error });
  }
  return parseSeed(json, env, path);
}

export function parseSeed(json: unknown, env: Environment, source = 'seed'): Seed {
  const parsed = seedSchema(env).safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
    throw new SeedError(`${source}: ${problems.join('; ')}`);
  }
  const problems = crossCheck(parsed.data);
  if (problems.length > 0) throw new SeedError(`${source}: ${problems.join('; ')}`);
  return parsed.data;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('') || '(root)';
}

function duplicates<T>(items: readonly T[]): T[] {
  const seen = new Set<T>();
  return items.filter((item) => (seen.has(item) ? true : (seen.add(item), false)));
}

/** Every reference resolves, every name is unique, every permission is where it may be. */
function crossCheck(seed: Seed): string[] {
  const problems: string[] = [];
  const companies = new Map(seed.companies.map((c) => [c.id, c]));
  const roles = new Set(seed.roles.map((r) => r.name));
  const mustBeUnique: [label: string, values: readonly unknown[]][] = [
    ['companies[].id', seed.companies.map((c) => c.id)],
    ['roles[].name', seed.roles.map((r) => r.name)],
    ['users[].id', seed.users.map((u) => u.id)],
    ['users[].username', seed.users.map((u) => u.username)],
    ['clientId', [...seed.apps.map((a) => a.clientId), ...seed.clients.map((c) => c.clientId)]],
    ['apps[].appKey', seed.apps.flatMap((a) => (a.appKey ? [a.appKey] : []))],
    ['devices[].id', seed.devices.map((d) => d.id)],
    ['apiTokens', seed.users.flatMap((u) => u.apiTokens)],
  ];
  for (const [label, values] of mustBeUnique) {
    for (const value of duplicates(values)) problems.push(`${label}: ${String(value)} appears twice`);
  }

  seed.companies.forEach((company, i) => {
    if (company.parentId !== null && !companies.has(company.parentId)) problems.push(`companies[${i}].parentId: no company ${company.parentId}`);
  });
  seed.users.forEach((user, i) => {
    user.memberships.forEach((membership, j) => {
      if (!companies.has(membership.companyId)) problems.push(`users[${i}].memberships[${j}].companyId: no company ${membership.companyId}`);
      membership.roles.forEach((role, k) => {
        if (!roles.has(role)) problems.push(`users[${i}].memberships[${j}].roles[${k}]: no role ${role}`);
      });
    });
  });
  seed.apps.forEach((app, i) => {
    app.permissions.forEach((p, j) => {
      if (app.appKey === null || !p.startsWith(`${app.appKey}:`)) {
        problems.push(`apps[${i}].permissions[${j}]: ${p} is outside the app's own namespace ${app.appKey ?? '(no app key)'}:`);
      }
    });
    app.requestedClientPermissions.forEach((p, j) => {
      if (app.appKey !== null && p.startsWith(`${app.appKey}:`)) {
        problems.push(`apps[${i}].requestedClientPermissions[${j}]: ${p} is in the app's own namespace and needs no consent`);
      }
    });
    if (app.toolPublisher && app.appKey === null) problems.push(`apps[${i}].toolPublisher: a client linked to no app cannot publish tools`);
    app.installations.forEach((installation, j) => {
      if (!companies.has(installation.companyId)) problems.push(`apps[${i}].installations[${j}].companyId: no company ${installation.companyId}`);
      if (app.appKey === null) problems.push(`apps[${i}].installations[${j}]: a client linked to no app cannot be installed`);
      installation.consentedPermissions.forEach((p, k) => {
        if (!app.requestedClientPermissions.includes(p)) {
          problems.push(`apps[${i}].installations[${j}].consentedPermissions[${k}]: ${p} is not in requestedClientPermissions`);
        }
      });
    });
  });
  seed.devices.forEach((device, i) => {
    if (!companies.has(device.companyId)) problems.push(`devices[${i}].companyId: no company ${device.companyId}`);
  });
  for (const company of seed.companies) {
    for (const id of duplicates(seed.legalDocuments.filter((d) => d.companyId === company.id).map((d) => d.id))) {
      problems.push(`legalDocuments[].id: ${id} appears twice in company ${company.id}`);
    }
  }
  seed.legalDocuments.forEach((doc, i) => {
    const company = companies.get(doc.companyId);
    if (!company) problems.push(`legalDocuments[${i}].companyId: no company ${doc.companyId}`);
    else if (company.parentId !== null) problems.push(`legalDocuments[${i}].companyId: company ${doc.companyId} is not a root company`);
  });
  return problems;
}
