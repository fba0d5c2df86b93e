// The stack's processes: which run, in what order, on which addresses, with what environment, and
// how each is known to be ready. `npm start` runs the embedded topology (one webhook-api with its
// deliverer on a SQLite file under ./data); `npm run start:pg` the scaled one (two webhook-api
// processes and two deliverers sharing one PostgreSQL). Every address follows from the variables
// the services themselves read (placement.ts). start:pg also runs two gateway replicas behind
// HAProxy (gateway-replicas.ts).
import { join } from 'node:path';
import type { DevCertificateFiles } from '@platform/devtools/dev-certificates';
import type { Environment } from '@platform/tool-sdk';
import { gatewayReplicas } from './gateway-replicas.ts';
import { loadPlacement, splitHostPort, stackAddresses, type Topology } from './placement.ts';
import type { ReadyProbe, StackProcess } from './process-types.ts';
import { repoRoot } from '../repo-root.ts';

export type { Environment };
export { placementVariables, stackAddresses, type StackAddresses, type Topology } from './placement.ts';
export type { Listener, ProgramLine, ReadyProbe, StackProcess } from './process-types.ts';

/** The person the demo, the readiness check and the banner's examples sign in as (a seeded device operator). */
export const demoPerson = 'oscar';

/** What the stack knows of the seed: who the readiness check signs in as, and the secrets it names. */
export interface SeedFacts {
  /** A seeded person who sees the tool service's tools: `oscar` in the repository's seed. */
  readonly person: string;
  /** The variables the seed reads its secrets from: the dev platform's, and only its. */
  readonly secretNames: readonly string[];
}

const entry = (path: string) => join(repoRoot, path);

/** Secrets the services need that no seed names: generated once like the seed's. */
export const serviceSecretNames: readonly string[] = [
  'WEBHOOK_INGEST_TOKEN',
  'WEBHOOK_METRICS_TOKEN',
  'MCP_METRICS_TOKEN',
  'METRICS_TOKEN',
  'PLATFORM_METRICS_TOKEN',
];

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
      // Apps of their own that new tool services were given (npm run tool-env) stay across restarts.
      PLATFORM_APPS_FILE: env.PLATFORM_APPS_FILE || join(env.WEBHOOK_DATA_DIR || 'data', 'dev-apps.json'),
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
    // The stack on one machine: a tool may send the person to a page on loopback (a local tool's own page).
    MCP_ELICITATION_LOOPBACK_HTTP: env.MCP_ELICITATION_LOOPBACK_HTTP ?? 'true',
    MCP_METRICS_TOKEN: env.MCP_METRICS_PUBLIC === 'true' ? '' : (secrets.MCP_METRICS_TOKEN ?? ''),
    // Where tool services may be reached: the stack runs its tool service on this machine's loopback.
    REGISTRY_CALLBACK_NETWORKS: env.REGISTRY_CALLBACK_NETWORKS || '127.0.0.0/8,::1/128',
    ...(grpcTls && grpcTlsEnv(grpcTls, 'gateway')),
  };
  const gatewayReady = (origin: string): ReadyProbe => ({ kind: 'http', url: `${origin}/.well-known/oauth-protected-resource${new URL(at.mcpUrl).pathname}` });
  const gateways: StackProcess[] = scaled
    ? gatewayReplicas(s, at, gatewayEnv, env.WEBHOOK_DATA_DIR || 'data', entry('mcp-server/src/main.ts'))
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
