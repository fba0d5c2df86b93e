// Where the stack's processes listen and are reached: the variables that place them, in the
// services' own settings vocabulary (PLATFORM_PORT, MCP_PORT, ...), checked together, and every
// address derived from them, so moving one port moves every reference to it.
import { setting, type Environment } from '@platform/tool-sdk';
import { fetchBlockedPortReason, isFetchBlockedPort, localOrigin, parseEnvironment } from '@platform/tool-sdk/internal';

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
export function loadPlacement(env: Environment, topology: Topology) {
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
export function splitHostPort(address: string): { host: string; port: number } {
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

export type Placement = ReturnType<typeof loadPlacement>;
