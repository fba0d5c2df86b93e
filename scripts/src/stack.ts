// The stack's processes: which run, in what order, on which addresses, with what environment, and
// how each is known to be ready. `npm start` runs the embedded topology (one webhook-api with its
// deliverer on a SQLite file under ./data); `npm run start:pg` the scaled one (two webhook-api
// processes and two deliverers sharing one PostgreSQL). Every address follows from the variables
// the services themselves read (PLATFORM_PORT, MCP_PORT, ...), so moving one port moves every
// reference to it. start:pg also runs two gateway replicas (sharing their registrations in
// PostgreSQL) behind HAProxy, which takes MCP_PORT and REGISTRY_ADDRESS; the replicas listen on
// MCP_REPLICA_PORT and the ports after it.
import { join, resolve } from 'node:path';
import type { DevCertificateFiles } from '@platform/devtools/dev-certificates';
import { haproxyConfig } from './haproxy-config.ts';
import { fetchBlockedPortReason, isFetchBlockedPort, localOrigin, parseEnvironment, setting, type Environment } from '@platform/tool-sdk';

export type { Environment };

/** A port a process listens on, and the variable that moves it. */
export interface Listener {
  readonly host: string;
  readonly port: number;
  readonly variable: string;
}

export type ReadyProbe =
  /** Ready when GET `url` answers 200. */
  | { readonly kind: 'http'; readonly url: string }
  /** Ready when the gateway lists tools to a person (the tool service has registered and been listed). */
  | { readonly kind: 'tools'; readonly mcpUrl: string; readonly platformUrl: string; readonly person: string };

/** A program other than Node, run with its arguments. */
export interface ProgramLine {
  readonly command: string;
  readonly args: readonly string[];
}

export interface StackProcess {
  /** The prefix of its output, and its name in messages. */
  readonly name: string;
  /** The file Node runs; or the command line of another program (haproxy). */
  readonly entry: string | ProgramLine;
  /** A file it reads, written before it starts (haproxy's configuration, generated from the ports). */
  readonly writes?: { readonly path: string; readonly text: string };
  /** Its variables (the secrets it needs among them, and only those), on top of the environment the stack was started with. */
  readonly env: Readonly<Record<string, string>>;
  readonly listens: readonly Listener[];
  readonly ready: ReadyProbe;
  /** What it serves, for the banner. */
  readonly serves: string;
}

export interface StackAddresses {
  readonly platformUrl: string;
  readonly aiUrl: string;
  readonly mcpUrl: string;
  readonly registryAddress: string;
  readonly toolServiceAddress: string;
  /** The webhook API processes (one embedded, two on PostgreSQL). */
  readonly webhookApiUrls: readonly string[];
  /** The deliverers running on their own (none embedded). */
  readonly delivererUrls: readonly string[];
  /** The demo's receiver. */
  readonly receiverUrl: string;
}

export type Topology = 'embedded' | 'postgres';

/** The person the demo, the readiness check and the banner's examples sign in as (a seeded device operator). */
export const demoPerson = 'oscar';

/** What the stack knows of the seed: who the readiness check signs in as, and the secrets it names. */
export interface SeedFacts {
  /** A seeded person who sees the tool service's tools: `oscar` in the repository's seed. */
  readonly person: string;
  /** The variables the seed reads its secrets from: the dev platform's, and only its. */
  readonly secretNames: readonly string[];
}

export const repoRoot = resolve(import.meta.dirname, '../..');
const entry = (path: string) => join(repoRoot, path);

/** Secrets the services need that no seed names: generated once like the seed's. */
export const serviceSecretNames: readonly string[] = [
  'WEBHOOK_INGEST_TOKEN',
  'WEBHOOK_METRICS_TOKEN',
  'MCP_METRICS_TOKEN',
  'METRICS_TOKEN',
  'PLATFORM_METRICS_TOKEN',
];

/** The variables that place the stack's processes, in the services' own settings vocabulary. */
const placement = {
  PLATFORM_HOST: setting.host.default('127.0.0.1'),
  PLATFORM_PORT: setting.httpPort.default(4000),
  PLATFORM_AI_PORT: setting.httpPort.default(4001),
  MCP_HOST: setting.host.default('127.0.0.1'),
  MCP_PORT: setting.httpPort.default(3000),
  // start:pg's gateway replicas, behind HAProxy on MCP_PORT: HTTP on this port and this + 2, their registries on + 1 and + 3.
  MCP_REPLICA_PORT: setting.httpPort.default(3010),
  // gRPC: not fetched, so any port.
  REGISTRY_ADDRESS: setting.hostPort.default('127.0.0.1:3001'),
  CALLBACK_ADDRESS: setting.hostPort.default('127.0.0.1:50051'),
  WEBHOOK_API_HOST: setting.host.default('127.0.0.1'),
  WEBHOOK_API_PORT: setting.httpPort.default(4100),
  WEBHOOK_DELIVERER_HOST: setting.host.default('127.0.0.1'),
  WEBHOOK_DELIVERER_PORT: setting.httpPort.optional(),
  DEMO_RECEIVER_PORT: setting.httpPort.default(4900),
  // Where the demo's receiver listens, and the address its webhook names: loopback, unless the
  // stack delivers from elsewhere (the compose test's containers reach it on their network's gateway).
  DEMO_RECEIVER_HOST: setting.host.default('127.0.0.1'),
  // Where the platform, its AI service and the gateway say they are, when not where they listen.
  PLATFORM_ISSUER: setting.baseUrl.optional(),
  PLATFORM_AI_BASE_URL: setting.baseUrl.optional(),
  MCP_PUBLIC_URL: setting.baseUrl.optional(),
};

/** The variables that place the stack: .env.example lists each. */
export const placementVariables: readonly string[] = Object.freeze(Object.keys(placement));

const portVariables = [
  'PLATFORM_PORT',
  'PLATFORM_AI_PORT',
  'MCP_PORT',
  'MCP_REPLICA_PORT',
  'WEBHOOK_API_PORT',
  'WEBHOOK_DELIVERER_PORT',
  'DEMO_RECEIVER_PORT',
] as const;

/** Where the stack's processes listen; throws a SETTINGS_INVALID PlatformError naming every bad variable. */
function loadPlacement(env: Environment, topology: Topology) {
  return parseEnvironment(placement, env, function* crossCheck(values) {
    // Every other address is derived from these: the system may not choose them.
    for (const name of portVariables) if (values[name] === 0) yield [name, 'must not be 0: the other services must know the port'];
    const roomNeeded = topology === 'postgres' ? 2 : 0;
    const highest = Math.max(values.WEBHOOK_API_PORT ?? 0, values.WEBHOOK_DELIVERER_PORT ?? 0) + 1;
    if (highest + roomNeeded > 65_535) yield ['WEBHOOK_API_PORT', "must leave room for start:pg's second API and deliverers, on the ports above it"];
    else if (topology === 'postgres') yield* derivedPortProblems(values.WEBHOOK_API_PORT, values.WEBHOOK_DELIVERER_PORT);
    const replicaPort = values.MCP_REPLICA_PORT;
    if (topology === 'postgres' && replicaPort !== undefined) {
      if (replicaPort + 3 > 65_535) yield ['MCP_REPLICA_PORT', "must leave room for start:pg's second gateway, on the ports above it"];
      else if (isFetchBlockedPort(replicaPort + 2))
        yield ['MCP_REPLICA_PORT', `must not put start:pg's second gateway on ${replicaPort + 2}: ${fetchBlockedPortReason}`];
    }
  });
}

/** start:pg's ports that follow from another (its second API, its deliverers) and land on one fetch refuses. */
function* derivedPortProblems(apiPort: number | undefined, delivererPort: number | undefined): Iterable<readonly [string, string]> {
  if (apiPort === undefined) return;
  const derived: (readonly [variable: string, port: number, what: string])[] = [['WEBHOOK_API_PORT', apiPort + 2, "start:pg's second API"]];
  if (delivererPort === undefined) {
    derived.push(['WEBHOOK_API_PORT', apiPort + 1, "start:pg's first deliverer"], ['WEBHOOK_API_PORT', apiPort + 3, "start:pg's second deliverer"]);
  } else derived.push(['WEBHOOK_DELIVERER_PORT', delivererPort + 2, "start:pg's second deliverer"]);
  for (const [variable, port, what] of derived) {
    if (isFetchBlockedPort(port)) yield [variable, `must not put ${what} on ${port}: ${fetchBlockedPortReason}`];
  }
}

/** host:port as the settings vocabulary takes it, split (an IPv6 host without its brackets). */
function splitHostPort(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(at + 1)) };
}

/** Every address of the stack, from the variables the services read. */
export function stackAddresses(env: Environment, topology: Topology): StackAddresses {
  const s = loadPlacement(env, topology);
  const apiPort = s.WEBHOOK_API_PORT;
  const delivererPort = s.WEBHOOK_DELIVERER_PORT ?? apiPort + 1;
  const apiPorts = topology === 'embedded' ? [apiPort] : [apiPort, apiPort + 2];
  // Where a service is reached from this machine, as the service names itself (localOrigin).
  return {
    platformUrl: s.PLATFORM_ISSUER ?? localOrigin(s.PLATFORM_HOST, s.PLATFORM_PORT),
    aiUrl: s.PLATFORM_AI_BASE_URL ?? localOrigin(s.PLATFORM_HOST, s.PLATFORM_AI_PORT),
    mcpUrl: s.MCP_PUBLIC_URL ?? `${localOrigin(s.MCP_HOST, s.MCP_PORT)}/mcp`,
    registryAddress: s.REGISTRY_ADDRESS,
    toolServiceAddress: s.CALLBACK_ADDRESS,
    webhookApiUrls: apiPorts.map((p) => localOrigin(s.WEBHOOK_API_HOST, p)),
    delivererUrls: topology === 'embedded' ? [] : [delivererPort, delivererPort + 2].map((p) => localOrigin(s.WEBHOOK_DELIVERER_HOST, p)),
    receiverUrl: localOrigin(s.DEMO_RECEIVER_HOST, s.DEMO_RECEIVER_PORT),
  };
}

/** A process's GRPC_TLS_* variables for its role: mutual TLS, as npm start runs it. */
export function grpcTlsEnv(files: DevCertificateFiles, role: 'gateway' | 'tool-service'): Record<string, string> {
  return {
    GRPC_TLS_CA_FILE: files.caFile,
    GRPC_TLS_CERT_FILE: role === 'gateway' ? files.gatewayCertFile : files.toolServiceCertFile,
    GRPC_TLS_KEY_FILE: role === 'gateway' ? files.gatewayKeyFile : files.toolServiceKeyFile,
    GRPC_TLS_REQUIRE_CLIENT_CERT: 'true',
  };
}

/**
 * The processes of a topology in start order (each depends only on those before it); they stop in
 * the reverse order, so tool services deregister while the gateway still listens.
 */
export function stackProcesses(
  env: Environment,
  secrets: Readonly<Record<string, string>>,
  topology: Topology,
  seed: SeedFacts,
  /** The development certificates for gRPC (mutual TLS); without them the environment's GRPC_TLS_*, or plaintext on loopback. */
  grpcTls?: DevCertificateFiles,
): StackProcess[] {
  const at = stackAddresses(env, topology);
  const s = loadPlacement(env, topology);
  const platformApi = { PLATFORM_API_BASE_URL: env.PLATFORM_API_BASE_URL || at.platformUrl };
  const apiPort = (url: string) => Number(new URL(url).port);

  const platform: StackProcess = {
    name: 'dev-platform',
    entry: entry('dev-platform/src/main.ts'),
    // A person's token may be asked for the gateway, wherever its port was moved, besides any
    // resource given; the seed's secrets are the platform's alone.
    env: {
      PLATFORM_EXTRA_RESOURCES: [...new Set([...(env.PLATFORM_EXTRA_RESOURCES ?? '').split(',').filter(Boolean), at.mcpUrl])].join(','),
      // MCP clients that registered once (mcp-remote, an agent desktop) can sign in again after a restart.
      PLATFORM_CLIENTS_FILE: env.PLATFORM_CLIENTS_FILE || join(env.WEBHOOK_DATA_DIR || 'data', 'platform-clients.json'),
      ...Object.fromEntries(seed.secretNames.map((name) => [name, secrets[name] ?? ''])),
      PLATFORM_METRICS_TOKEN: env.PLATFORM_METRICS_PUBLIC === 'true' ? '' : (secrets.PLATFORM_METRICS_TOKEN ?? ''),
    },
    listens: [
      { host: s.PLATFORM_HOST, port: s.PLATFORM_PORT, variable: 'PLATFORM_PORT' },
      { host: s.PLATFORM_HOST, port: s.PLATFORM_AI_PORT, variable: 'PLATFORM_AI_PORT' },
    ],
    ready: { kind: 'http', url: `${at.platformUrl}/health` },
    serves: `${at.platformUrl} (OAuth issuer and platform API)`,
  };

  const webhookApiEnv = {
    ...platformApi,
    WEBHOOK_INGEST_TOKEN: secrets.WEBHOOK_INGEST_TOKEN ?? '',
    // /metrics asks for the generated token, unless the person opened it (then no token: both is refused).
    WEBHOOK_METRICS_TOKEN: env.WEBHOOK_METRICS_PUBLIC === 'true' ? '' : (secrets.WEBHOOK_METRICS_TOKEN ?? ''),
    // The demo's receiver is on loopback; never in production.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: env.WEBHOOK_ALLOW_PRIVATE_TARGETS || String(env.NODE_ENV !== 'production'),
  };
  const scaled = topology === 'postgres';
  const apis: StackProcess[] = at.webhookApiUrls.map((url, index) => ({
    name: scaled ? `webhook-api-${index + 1}` : 'webhook-api',
    entry: entry('webhook-api/src/main.ts'),
    env: { ...webhookApiEnv, WEBHOOK_API_PORT: String(apiPort(url)), ...(scaled && { WEBHOOK_RUN_DELIVERER: 'false' }) },
    listens: [
      {
        host: s.WEBHOOK_API_HOST,
        port: apiPort(url),
        variable: index === 0 ? 'WEBHOOK_API_PORT' : 'WEBHOOK_API_PORT (its second process takes that port + 2)',
      },
    ],
    ready: { kind: 'http', url: `${url}/health` },
    serves: `${url} (webhook REST API${scaled ? ', telemetry ingest' : ', telemetry ingest and its deliverer'})`,
  }));
  const deliverers: StackProcess[] = at.delivererUrls.map((url, index) => ({
    name: `deliverer-${index + 1}`,
    entry: entry('webhook-api/src/deliverer-main.ts'),
    env: { ...webhookApiEnv, WEBHOOK_DELIVERER_PORT: String(apiPort(url)) },
    listens: [
      {
        host: s.WEBHOOK_DELIVERER_HOST,
        port: apiPort(url),
        variable: index === 0 ? 'WEBHOOK_DELIVERER_PORT' : 'WEBHOOK_DELIVERER_PORT (the second deliverer takes that port + 2)',
      },
    ],
    ready: { kind: 'http', url: `${url}/health` },
    serves: `${url}/metrics (deliverer)`,
  }));

  const registry = splitHostPort(at.registryAddress);
  const gatewayEnv = {
    ...platformApi,
    MCP_PUBLIC_URL: at.mcpUrl,
    MCP_GATEWAY_CLIENT_SECRET: secrets.MCP_GATEWAY_CLIENT_SECRET ?? '',
    MCP_METRICS_TOKEN: env.MCP_METRICS_PUBLIC === 'true' ? '' : (secrets.MCP_METRICS_TOKEN ?? ''),
    ...(grpcTls && grpcTlsEnv(grpcTls, 'gateway')),
  };
  const gatewayReady = (origin: string): ReadyProbe => ({ kind: 'http', url: `${origin}/.well-known/oauth-protected-resource${new URL(at.mcpUrl).pathname}` });
  const gateways: StackProcess[] = scaled
    ? gatewayReplicas(s, at, gatewayEnv, env.WEBHOOK_DATA_DIR || 'data')
    : [
        {
          name: 'mcp-server',
          entry: entry('mcp-server/src/main.ts'),
          env: { ...gatewayEnv, REGISTRY_ADDRESS: at.registryAddress },
          listens: [
            { host: s.MCP_HOST, port: s.MCP_PORT, variable: 'MCP_PORT' },
            { host: registry.host, port: registry.port, variable: 'REGISTRY_ADDRESS' },
          ],
          ready: gatewayReady(new URL(at.mcpUrl).origin),
          serves: `${at.mcpUrl} (MCP gateway; tool registry on gRPC${grpcTls ? ' over mutual TLS' : ''} ${at.registryAddress})`,
        },
      ];

  const callback = splitHostPort(at.toolServiceAddress);
  // The tool service's /metrics: on METRICS_PORT, else the port after its gRPC one; the generated token unless opened.
  const toolMetrics = {
    METRICS_HOST: env.METRICS_HOST || callback.host,
    METRICS_PORT: env.METRICS_PORT || String(callback.port + 1),
    METRICS_TOKEN: env.METRICS_PUBLIC === 'true' ? '' : (secrets.METRICS_TOKEN ?? ''),
  };
  const tools: StackProcess = {
    name: 'tool-service',
    entry: entry('tool-service/src/main.ts'),
    // It runs as the app webhook-tools; the seed's secret for that client is its own.
    env: {
      ...platformApi,
      PLATFORM_AI_BASE_URL: at.aiUrl,
      APP_CLIENT_ID: 'webhook-tools',
      APP_CLIENT_SECRET: secrets.WEBHOOK_TOOLS_CLIENT_SECRET ?? '',
      GATEWAY_ADDRESS: env.GATEWAY_ADDRESS || at.registryAddress,
      CALLBACK_ADDRESS: at.toolServiceAddress,
      WEBHOOK_API_BASE_URL: env.WEBHOOK_API_BASE_URL || (at.webhookApiUrls[0] ?? ''),
      ...toolMetrics,
      ...(grpcTls && grpcTlsEnv(grpcTls, 'tool-service')),
    },
    listens: [
      { host: callback.host, port: callback.port, variable: 'CALLBACK_ADDRESS' },
      { host: toolMetrics.METRICS_HOST, port: Number(toolMetrics.METRICS_PORT), variable: 'METRICS_PORT' },
    ],
    ready: { kind: 'tools', mcpUrl: at.mcpUrl, platformUrl: at.platformUrl, person: seed.person },
    serves: `gRPC${grpcTls ? ' over mutual TLS' : ''} ${at.toolServiceAddress} (webhook tools, registered at the gateway)`,
  };

  return [platform, ...apis, ...deliverers, ...gateways, tools];
}

/**
 * start:pg's gateways: two replicas sharing their registrations in PostgreSQL (the DATABASE_URL
 * start:pg passes every process), each on its own ports, then HAProxy on MCP_PORT and
 * REGISTRY_ADDRESS in front of them, its configuration written into the data folder.
 */
function gatewayReplicas(
  s: ReturnType<typeof loadPlacement>,
  at: StackAddresses,
  gatewayEnv: Readonly<Record<string, string>>,
  dataDir: string,
): StackProcess[] {
  const registry = splitHostPort(at.registryAddress);
  const plan = {
    mcp: { host: s.MCP_HOST, port: s.MCP_PORT },
    registry,
    replicas: [0, 2].map((offset) => ({
      http: { host: s.MCP_HOST, port: s.MCP_REPLICA_PORT + offset },
      registry: { host: registry.host, port: s.MCP_REPLICA_PORT + offset + 1 },
    })),
  };
  const replicas = plan.replicas.map(({ http, registry: own }, index): StackProcess => {
    const origin = localOrigin(http.host, http.port);
    const which = index === 0 ? 'MCP_REPLICA_PORT' : 'MCP_REPLICA_PORT (the second gateway takes that port + 2)';
    const registryAddress = `${own.host.includes(':') ? `[${own.host}]` : own.host}:${own.port}`;
    return {
      name: `mcp-server-${index + 1}`,
      entry: entry('mcp-server/src/main.ts'),
      env: { ...gatewayEnv, MCP_PORT: String(http.port), REGISTRY_ADDRESS: registryAddress },
      listens: [
        { host: http.host, port: http.port, variable: which },
        { host: own.host, port: own.port, variable: `${which.split(' ')[0] ?? which} + ${index * 2 + 1} (its tool registry)` },
      ],
      ready: { kind: 'http', url: `${origin}/health` },
      serves: `${origin}/mcp (MCP gateway replica; tool registry on gRPC ${registryAddress})`,
    };
  });
  const configPath = resolve(dataDir, 'haproxy.cfg');
  const balancer: StackProcess = {
    name: 'haproxy',
    // -db: in the foreground, stopped with the stack; -f: the configuration generated from the ports.
    entry: { command: 'haproxy', args: ['-db', '-f', configPath] },
    writes: { path: configPath, text: haproxyConfig(plan) },
    env: {},
    listens: [
      { host: s.MCP_HOST, port: s.MCP_PORT, variable: 'MCP_PORT' },
      { host: registry.host, port: registry.port, variable: 'REGISTRY_ADDRESS' },
    ],
    ready: { kind: 'http', url: `${new URL(at.mcpUrl).origin}/health` },
    serves: `${at.mcpUrl} (HAProxy: MCP to both gateways, sessions kept on theirs; tool registry on gRPC ${at.registryAddress})`,
  };
  return [...replicas, balancer];
}
