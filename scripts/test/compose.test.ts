// docker-compose.yml, checked without a container engine: the services, their start order, health
// checks and published ports, and each service's environment run through that service's own
// settings loader, which must accept it and read every variable in it. The loaders are imported
// from the services' sources on purpose: the file is right only when they agree with it.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { ensureDevCertificates } from '@platform/devtools/dev-certificates';
import { type Environment } from '@platform/tool-sdk';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadSeedFile } from '../../dev-platform/src/world/seed.ts';
import { loadDevPlatformSettings } from '../../dev-platform/src/settings.ts';
import { loadMcpServerSettings } from '../../mcp-server/src/settings.ts';
import { loadToolServiceSettings } from '../../tool-service/src/settings.ts';
import { loadDelivererSettings, loadWebhookApiSettings } from '../../webhook-api/src/settings.ts';

interface ComposeService {
  readonly image?: string;
  readonly command?: unknown;
  readonly environment?: Record<string, unknown>;
  readonly healthcheck?: { readonly test?: unknown };
  readonly depends_on?: Record<string, { readonly condition?: string }>;
  readonly network_mode?: string;
  readonly ports?: unknown[];
  readonly volumes?: unknown[];
}

const repoRoot = resolve(import.meta.dirname, '../..');
const composeText = readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8');
const compose = parse(composeText, { merge: true }) as { services: Record<string, ComposeService> };
const services = compose.services;
const withoutComments = composeText.replace(/^\s*#.*$/gm, '');

/** What each entry point reads, through its own loaders: the settings and, for the platform, the seed. */
const readers: Readonly<Record<string, (env: Environment) => unknown>> = {
  'dev-platform/src/main.ts': (env) => {
    const settings = loadDevPlatformSettings(env);
    return { settings, seed: loadSeedFile(settings.seedPath, env) };
  },
  'webhook-api/src/main.ts': loadWebhookApiSettings,
  'webhook-api/src/deliverer-main.ts': loadDelivererSettings,
  'mcp-server/src/main.ts': loadMcpServerSettings,
  'tool-service/src/main.ts': loadToolServiceSettings,
};

/** The one-shot init service's entry point: it writes the certificates, and reads no settings. */
const certificatesEntry = 'scripts/src/stack/certificates-main.ts';

const roleOf: Readonly<Record<string, string>> = {
  [certificatesEntry]: 'certificates',
  'dev-platform/src/main.ts': 'dev-platform',
  'webhook-api/src/main.ts': 'webhook-api',
  'webhook-api/src/deliverer-main.ts': 'deliverer',
  'mcp-server/src/main.ts': 'mcp-server',
  'tool-service/src/main.ts': 'tool-service',
};

/** The variables compose requires (`${NAME:?message}`). */
const required = [...new Set([...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]*):\?/g)].map(([, variable]) => variable ?? ''))];

/** What the environment running compose gives: a made-up value for each required variable (the services' loaders judge them). */
const given: Readonly<Record<string, string>> = Object.fromEntries(
  required.map((name) => [name, name === 'WEBHOOK_ENCRYPTION_KEY' ? `compose-test:${randomBytes(32).toString('base64')}` : randomBytes(24).toString('hex')]),
);

/** Compose's interpolation: $$, $NAME, ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error}, ${NAME?error}. */
function interpolate(value: string, vars: Readonly<Record<string, string>>): string {
  const pattern = /\$(\$|\{([A-Za-z_]\w*)(?:(:?)([-?])([^}]*))?\}|([A-Za-z_]\w*))/g;
  return value.replace(pattern, (_match, whole: string, braced?: string, colon?: string, operator?: string, argument?: string, bare?: string) => {
    if (whole === '$') return '$';
    const name = braced ?? bare ?? '';
    const found = vars[name];
    if (found !== undefined && !(colon === ':' && found === '')) return found;
    if (operator === '?') throw new Error(`compose would refuse to start: ${name} is required (${argument ?? ''})`);
    return operator === '-' ? (argument ?? '') : '';
  });
}

const entryOf = (name: string): string => {
  const command = services[name]?.command;
  return Array.isArray(command) && command[0] === 'node' && typeof command[1] === 'string' ? command[1] : '';
};
const role = (name: string): string => (/\bpostgres\b/.test(services[name]?.image ?? '') ? 'postgres' : (roleOf[entryOf(name)] ?? 'unknown'));
const named = (wanted: string): string[] => Object.keys(services).filter((name) => role(name) === wanted);
/** The long-running Node services (the init service runs once and exits). */
const nodeServices = Object.keys(services).filter((name) => role(name) !== 'postgres' && role(name) !== 'certificates');

/** The certificates volume as the init service fills it, on this machine: what the services find under its mount point. */
const [certificatesService = ''] = Object.keys(services).filter((name) => role(name) === 'certificates');
const certificatesCommand = (services[certificatesService]?.command ?? []) as string[];
const mountPoint = certificatesCommand[certificatesCommand.indexOf('--out') + 1] ?? '';
const certificateHosts = (certificatesCommand[certificatesCommand.indexOf('--hosts') + 1] ?? '').split(',');
const certificateFolder = mkdtempSync(join(tmpdir(), 'compose-certificates-'));
await ensureDevCertificates(certificateFolder, certificateHosts);
const onThisMachine = (value: string) => (mountPoint && value.startsWith(`${mountPoint}/`) ? join(certificateFolder, value.slice(mountPoint.length)) : value);

function rawEnvironment(name: string): Record<string, string> {
  const entries = Object.entries(services[name]?.environment ?? {});
  const notText = entries.filter(([, value]) => typeof value !== 'string').map(([variable]) => variable);
  if (notText.length > 0) throw new Error(`${name}: quote ${notText.join(', ')} (compose wants text; YAML reads false and 4000 otherwise)`);
  return Object.fromEntries(entries) as Record<string, string>;
}

const environmentOf = (name: string): Record<string, string> =>
  Object.fromEntries(Object.entries(rawEnvironment(name)).map(([variable, value]) => [variable, onThisMachine(interpolate(value, given))]));

/** Variables Node itself reads, not a settings loader. */
const readByNode = new Set(['NODE_EXTRA_CA_CERTS']);

const hostPort = (address: string) => ({ host: address.slice(0, address.lastIndexOf(':')), port: Number(address.slice(address.lastIndexOf(':') + 1)) });

/** The sockets a service listens on inside the shared network namespace, as its own settings say. */
function socketsOf(name: string): { host: string; port: number; tls?: boolean }[] {
  const env = environmentOf(name);
  switch (role(name)) {
    case 'dev-platform': {
      const s = loadDevPlatformSettings(env);
      return [{ host: s.host, port: s.port }, { host: s.host, port: s.aiPort }, ...(s.tls ? [{ host: s.host, port: s.tls.port, tls: true }] : [])];
    }
    case 'webhook-api': {
      const s = loadWebhookApiSettings(env);
      return [{ host: s.host, port: s.port }, ...(s.tls ? [{ host: s.host, port: s.tls.port, tls: true }] : [])];
    }
    case 'deliverer': {
      const s = loadDelivererSettings(env);
      return [{ host: s.host, port: s.port }];
    }
    case 'mcp-server': {
      const s = loadMcpServerSettings(env);
      return [
        { host: s.host, port: s.port },
        { ...hostPort(s.registryAddress), tls: true },
      ];
    }
    case 'tool-service':
      return [{ ...hostPort(loadToolServiceSettings(env).callbackAddress), tls: true }];
    default:
      return [];
  }
}

const healthTest = (name: string): string => {
  const test = services[name]?.healthcheck?.test;
  return Array.isArray(test) ? test.join(' ') : typeof test === 'string' ? test : '';
};

describe('docker-compose.yml', () => {
  it('runs the certificates, postgres, the dev platform, two webhook APIs, two deliverers, the MCP server and the tool service, each from a file in the repository', () => {
    const counts = Object.fromEntries(
      ['certificates', 'postgres', 'dev-platform', 'webhook-api', 'deliverer', 'mcp-server', 'tool-service', 'unknown'].map((r) => [r, named(r).length]),
    );
    expect(counts).toEqual({ certificates: 1, postgres: 1, 'dev-platform': 1, 'webhook-api': 2, deliverer: 2, 'mcp-server': 1, 'tool-service': 1, unknown: 0 });
    expect(existsSync(join(repoRoot, certificatesEntry))).toBe(true);
    for (const name of nodeServices) {
      expect(existsSync(join(repoRoot, entryOf(name))), `${name} runs ${entryOf(name)}`).toBe(true);
      expect(services[name]?.command, name).toHaveLength(2);
    }
  });

  it('gives every service a health check on its own port; the tool service is healthy once registered at the gateway', () => {
    expect(healthTest(named('postgres')[0] ?? '')).toMatch(/\bpg_isready\b/);
    const [toolService = ''] = named('tool-service');
    expect(healthTest(toolService)).toBe('CMD node tool-service/src/health-check-main.ts');
    expect(existsSync(join(repoRoot, 'tool-service/src/health-check-main.ts'))).toBe(true);
    for (const name of nodeServices.filter((service) => service !== toolService)) {
      const [own] = socketsOf(name);
      expect(healthTest(name), name).toContain('127.0.0.1');
      expect(healthTest(name), name).toMatch(new RegExp(`\\b${String(own?.port)}\\b`));
    }
  });

  it('starts each service once the ones before it are ready: the certificates written, then postgres and dev-platform, webhook APIs, mcp-server, tool-service; deliverers after postgres', () => {
    const order = ['dev-platform', 'webhook-api', 'mcp-server', 'tool-service'];
    const closure = (name: string, seen = new Set<string>()): Set<string> => {
      for (const [dependency, { condition }] of Object.entries(services[name]?.depends_on ?? {})) {
        const expected = role(dependency) === 'certificates' ? 'service_completed_successfully' : 'service_healthy';
        expect(condition, `${name} waits for ${dependency}`).toBe(expected);
        if (!seen.has(dependency)) closure(dependency, seen.add(dependency));
      }
      return seen;
    };
    for (const name of nodeServices) {
      const before = closure(name);
      expect(before.has(name), `${name} depends on itself`).toBe(false);
      const earlier = role(name) === 'deliverer' ? ['postgres'] : [...order.slice(0, order.indexOf(role(name))), 'certificates'];
      if (role(name) === 'webhook-api') earlier.push('postgres');
      expect([...before].sort(), name).toEqual(expect.arrayContaining(earlier.flatMap(named)));
    }
  });

  it('runs both APIs as queues only, and all four webhook processes on one database and one key ring', () => {
    const webhook = [...named('webhook-api'), ...named('deliverer')];
    expect(named('webhook-api').map((name) => loadWebhookApiSettings(environmentOf(name)).runDeliverer)).toEqual([false, false]);
    const stores = webhook.map((name) => {
      const { databaseUrl, encryptionKeys } = loadDelivererSettings(environmentOf(name));
      return JSON.stringify({ databaseUrl, encryptionKeys });
    });
    expect(new Set(stores).size).toBe(1);
    expect(loadDelivererSettings(environmentOf(webhook[0] ?? '')).databaseUrl).toMatch(/^postgres:/);
  });

  it('accepts each service environment in that service loader, and sets no variable the service does not read', () => {
    for (const name of nodeServices) {
      const env = environmentOf(name);
      const read = readers[entryOf(name)];
      if (!read) throw new Error(`${name}: no loader known for ${entryOf(name)}`);
      JSON.stringify(read(env)); // accepted as given
      const outcome = (e: Environment): string => {
        try {
          return JSON.stringify(read(e));
        } catch (error) {
          return `refused: ${(error as Error).message}`;
        }
      };
      // A variable is read when a wrong value for it changes what is loaded, or is refused: as
      // given, or beside WEBHOOK_ALLOW_PRIVATE_TARGETS=true, the only place NODE_ENV shows (the
      // settings refuse private targets in production).
      const contexts = [env, ...('WEBHOOK_ALLOW_PRIVATE_TARGETS' in env ? [{ ...env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }] : [])];
      const unread = Object.keys(env).filter(
        (variable) =>
          !readByNode.has(variable) && contexts.every((context) => outcome({ ...context, [variable]: ' *not a valid value* ' }) === outcome(context)),
      );
      expect(unread, `${name} sets variables it never reads`).toEqual([]);
    }
  });

  it('gives postgres only what the official image reads, and the database URL its user, password and database', () => {
    const [postgres = ''] = named('postgres');
    const env = environmentOf(postgres);
    const imageReads = [
      'POSTGRES_USER',
      'POSTGRES_PASSWORD',
      'POSTGRES_DB',
      'POSTGRES_INITDB_ARGS',
      'POSTGRES_INITDB_WALDIR',
      'POSTGRES_HOST_AUTH_METHOD',
      'PGDATA',
    ];
    expect(imageReads).toEqual(expect.arrayContaining(Object.keys(env)));
    const url = new URL(loadDelivererSettings(environmentOf(named('deliverer')[0] ?? '')).databaseUrl ?? '');
    expect([url.hostname, url.port, url.username, url.password, url.pathname]).toEqual([
      postgres,
      '5432',
      env.POSTGRES_USER,
      env.POSTGRES_PASSWORD,
      `/${env.POSTGRES_DB ?? ''}`,
    ]);
    expect(healthTest(postgres)).toContain(String(env.POSTGRES_USER));
  });

  it('writes no secret: each comes from the environment, required, or empty when not given; the header says how to make the required ones', () => {
    const secretInterpolation = /^\$\{[A-Z][A-Z0-9_]*(:\?[^}]+|:-)\}$/;
    const problems: string[] = [];
    for (const name of Object.keys(services)) {
      for (const [variable, value] of Object.entries(rawEnvironment(name))) {
        if (variable === 'DATABASE_URL') {
          const password = /^postgres(ql)?:\/\/[^:/@]+:(.*)@[^@]+$/.exec(value)?.[2] ?? '';
          if (!/^\$\{[A-Z][A-Z0-9_]*:\?[^}]+\}$/.test(password)) problems.push(`${name} ${variable}: the password must be a required interpolation`);
        } else if (/SECRET|TOKEN|PASSWORD|_KEY$/.test(variable) && !secretInterpolation.test(value)) {
          problems.push(`${name} ${variable} is written in the file`);
        }
      }
    }
    expect(problems).toEqual([]);
    const header = /^(#.*\n)+/.exec(composeText)?.[0] ?? '';
    expect(required.filter((variable) => !header.includes(variable))).toEqual([]);
  });

  it('gives the gateway and the tool service the secrets the platform seed gives their clients', () => {
    const { seed } = readers['dev-platform/src/main.ts']?.(environmentOf(named('dev-platform')[0] ?? '')) as { seed: ReturnType<typeof loadSeedFile> };
    const tools = loadToolServiceSettings(environmentOf(named('tool-service')[0] ?? ''));
    const gateway = loadMcpServerSettings(environmentOf(named('mcp-server')[0] ?? ''));
    expect(seed.apps.find((app) => app.clientId === tools.appClientId)?.clientSecret).toBe(tools.appClientSecret);
    expect(seed.clients.find((client) => client.clientId === gateway.clientId)?.clientSecret).toBe(gateway.clientSecret);
  });

  it('gives every service its own network namespace: no network_mode, the others reached by service name', () => {
    for (const name of Object.keys(services)) expect(services[name]?.network_mode, name).toBeUndefined();
    expect(withoutComments).not.toMatch(/network_mode/);
    const gateway = loadMcpServerSettings(environmentOf(named('mcp-server')[0] ?? ''));
    const tools = loadToolServiceSettings(environmentOf(named('tool-service')[0] ?? ''));
    expect(hostPort(tools.gatewayAddress)).toEqual({ host: named('mcp-server')[0], port: hostPort(gateway.registryAddress).port });
    expect(hostPort(tools.callbackAddress).host).toBe(named('tool-service')[0]);
    expect(new URL(tools.webhookApiBaseUrl).hostname).toBe(named('webhook-api')[0]);
    // Every name a service is dialled by is one the certificates name.
    expect(certificateHosts).toEqual(expect.arrayContaining(nodeServices.filter((name) => role(name) !== 'deliverer')));
  });

  it('keeps one identity of the platform for the host and the services: the issuer and API base http://127.0.0.1:4000, reached inside through its back channel over https', () => {
    const platform = loadDevPlatformSettings(environmentOf(named('dev-platform')[0] ?? ''));
    const gateway = loadMcpServerSettings(environmentOf(named('mcp-server')[0] ?? ''));
    const tools = loadToolServiceSettings(environmentOf(named('tool-service')[0] ?? ''));
    const apis = named('webhook-api').map((name) => loadWebhookApiSettings(environmentOf(name)));
    expect(platform.issuer).toBe('http://127.0.0.1:4000');
    expect([gateway.issuerUrl, gateway.apiBaseUrl, tools.issuerUrl, tools.apiBaseUrl, ...apis.map((api) => api.platformApiBaseUrl)]).toEqual(
      Array(4 + apis.length).fill(platform.issuer),
    );
    const backChannel = `https://${named('dev-platform')[0] ?? ''}:${String(platform.tls?.port)}`;
    expect([gateway.backChannelUrl, tools.backChannelUrl, ...apis.map((api) => api.platformBackChannelUrl)]).toEqual(Array(2 + apis.length).fill(backChannel));
    expect(gateway.publicUrl).toBe('http://127.0.0.1:3000/mcp');
    expect(platform.extraResources).toContain(gateway.publicUrl);
    expect(gateway.allowedHosts).toEqual(expect.arrayContaining(['127.0.0.1', 'localhost']));
  });

  it('carries tokens across the network over TLS only: gRPC mutual TLS without GRPC_PLAINTEXT_OFF_LOOPBACK, the webhook API on its TLS listener, the CA trusted by Node', () => {
    const gateway = loadMcpServerSettings(environmentOf(named('mcp-server')[0] ?? ''));
    const tools = loadToolServiceSettings(environmentOf(named('tool-service')[0] ?? ''));
    expect(withoutComments).not.toMatch(/GRPC_PLAINTEXT_OFF_LOOPBACK/);
    expect([gateway.grpcPlaintextOffLoopback, gateway.grpcTls?.requireClientCert, tools.grpcTls?.requireClientCert]).toEqual([false, true, true]);
    const api = loadWebhookApiSettings(environmentOf(named('webhook-api')[0] ?? ''));
    expect(tools.webhookApiBaseUrl).toBe(`https://${named('webhook-api')[0] ?? ''}:${String(api.tls?.port)}`);
    for (const name of [...named('dev-platform'), ...named('webhook-api'), ...named('mcp-server'), ...named('tool-service')]) {
      const env = rawEnvironment(name);
      expect(services[name]?.volumes, name).toEqual([`certificates:${mountPoint}:ro`]);
      if (role(name) !== 'dev-platform') expect(env.NODE_EXTRA_CA_CERTS, name).toBe(`${mountPoint}/ca.pem`);
    }
  });

  it('publishes on the host loopback only the plain http ports clients call, each once; gRPC, the TLS listeners and postgres stay unpublished', () => {
    const hostPorts: number[] = [];
    for (const name of Object.keys(services)) {
      const sockets = role(name) === 'postgres' || role(name) === 'certificates' ? [] : socketsOf(name);
      const clientPorts = sockets.filter((socket) => socket.host === '0.0.0.0' && !socket.tls).map((socket) => socket.port);
      const published = (services[name]?.ports ?? []).map((entry) => {
        const [ip, hostSide, containerSide] = String(entry).split(':');
        expect(ip, `${name} ${String(entry)}`).toBe('127.0.0.1');
        hostPorts.push(Number(hostSide));
        return Number(containerSide);
      });
      expect([...published].sort(), name).toEqual([...clientPorts].sort());
    }
    expect([...hostPorts].sort()).toEqual([3000, 4000, 4001, 4100, 4102]);
  });
});

describe('the image (Dockerfile)', () => {
  const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
  const manifest = (workspace: string) =>
    JSON.parse(readFileSync(join(repoRoot, workspace, 'package.json'), 'utf8')) as {
      name: string;
      workspaces?: string[];
      dependencies?: Record<string, string>;
      exports?: Record<string, string | Record<string, string>>;
    };
  const workspaces = manifest('.').workspaces ?? [];

  it('copies every workspace manifest before npm ci, and keeps node_modules, data and .git out of the build context', () => {
    const install = dockerfile.indexOf('npm ci --omit=dev');
    expect(install).toBeGreaterThan(0);
    for (const workspace of workspaces) expect(dockerfile.slice(0, install), workspace).toContain(`COPY ${workspace}/package.json ${workspace}/`);
    const ignored = readFileSync(join(repoRoot, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', 'data', '.git', '.env']));
  });

  it('installs with --omit=dev, so every package the services load at run time is a dependency of its workspace', () => {
    expect(dockerfile).toMatch(/^RUN .*npm ci --omit=dev/m);
    const byName = new Map(workspaces.map((workspace) => [manifest(workspace).name, workspace]));
    const problems = new Set<string>();
    const seen = new Set<string>();
    const queue = [...Object.keys(readers), certificatesEntry, 'tool-service/src/health-check-main.ts'].map((entry) => join(repoRoot, entry));
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      if (seen.has(file)) continue;
      seen.add(file);
      const owner = manifest(relative(repoRoot, file).split('/')[0] ?? '');
      const source = readFileSync(file, 'utf8');
      const specifiers = [
        // `import type` and `export type` are erased when Node strips the types: nothing is loaded.
        ...[...source.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\bfrom\s+)?['"]([^'"]+)['"]/gm)].filter(([, type]) => !type).map(([, , s]) => s),
        ...[...source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map(([, s]) => s),
      ];
      for (const specifier of specifiers) {
        if (!specifier || specifier.startsWith('node:')) continue;
        if (specifier.startsWith('.')) {
          queue.push(resolve(dirname(file), specifier));
          continue;
        }
        const parts = specifier.split('/');
        const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? '');
        const where = relative(repoRoot, file);
        if (!owner.dependencies?.[name]) problems.add(`${where} loads ${name}, not a dependency of ${owner.name}`);
        const workspace = byName.get(name);
        if (workspace !== undefined) {
          const subpath = specifier.slice(name.length);
          const exported = manifest(workspace).exports?.[`.${subpath}`];
          // The SDK and proto export dist/ to consumers; the image runs their sources (@platform/source).
          const target = typeof exported === 'object' ? exported['@platform/source'] : exported;
          if (target === undefined) problems.add(`${where} loads ${specifier}, which ${name} does not export`);
          else queue.push(join(repoRoot, workspace, target));
        }
      }
    }
    expect(seen.size).toBeGreaterThan(20);
    expect([...problems]).toEqual([]);
  });
});
