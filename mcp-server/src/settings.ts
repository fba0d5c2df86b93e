// The MCP gateway's settings, read once from the environment in the SDK's vocabulary and frozen;
// every bad variable, and every problem across variables, is named in one message. The gateway's
// client secret has no default, and DATABASE_URL (which may hold a password) is never echoed.
import { cidrProblem, defaultCatalogLimits, loopbackNetworks, type CatalogLimits } from './registry/index.ts';
import { setting, type Environment, type GrpcTlsSettings, type LogLevel } from '@platform/tool-sdk';
import {
  grpcTlsAsked,
  grpcTlsProblems,
  grpcTlsShape,
  isLoopbackHost,
  localOrigin,
  metricsSettingsPart,
  parseSettings,
  platformAddressesOf,
  platformAddressShape,
  telemetrySettingsPart,
  toGrpcTlsSettings,
  type SettingsPart,
} from '@platform/tool-sdk/internal';
import type { MetricsSettings, TelemetrySettings } from '@platform/tool-sdk/observability';

export interface McpServerSettings {
  /** Where the HTTP server listens. */
  readonly host: string;
  readonly port: number;
  /**
   * The MCP endpoint's public URL: the resource identifier (RFC 8707) person tokens must be issued
   * for, and what the protected-resource metadata names. Its path is where MCP is served.
   */
  readonly publicUrl: string;
  /** Host names the Host header may carry (DNS rebinding protection); the public URL's host is always one. */
  readonly allowedHosts: readonly string[];
  /** Origin host names browsers may call from; loopback names and the public URL's host are always allowed. */
  readonly allowedOrigins: readonly string[];
  /** The platform API's base address (GET /api/me, /api/apps/me). */
  readonly apiBaseUrl: string;
  /** The platform's OAuth issuer (discovery, token exchange); defaults to apiBaseUrl. */
  readonly issuerUrl: string;
  /** Where the gateway sends its requests for the platform's API and issuer when their addresses are not reachable from here (PLATFORM_BACKCHANNEL_URL). */
  readonly backChannelUrl?: string | undefined;
  /** The gateway's own OAuth client, which makes the token exchanges. */
  readonly clientId: string;
  readonly clientSecret: string;
  /** The ToolRegistry's gRPC address, host:port. */
  readonly registryAddress: string;
  /** App keys the operator lets register tool services, among the platform's tool publishers; undefined: every publisher. */
  readonly registryAllowedApps: readonly string[] | undefined;
  /** The networks (CIDR blocks) tool services may be reached at; a callback address elsewhere is refused. Default loopback. */
  readonly registryCallbackNetworks: readonly string[];
  /** The app key whose tools keep their own names; every other app's are `<appKey>__<name>`. Undefined: none. */
  readonly registryPlainNamesApp: string | undefined;
  /** Longest registration lifetime granted; a service asking for more gets this. */
  readonly registrationMaxTtlSeconds: number;
  /** Live registrations at most, over all apps, and per app. */
  readonly registryMaxRegistrations: number;
  readonly registryMaxRegistrationsPerApp: number;
  /** Tools per service, and bytes of tools per tool, per registration, per app and in all. */
  readonly catalogLimits: CatalogLimits;
  /** Time limit of one tool call, from the gateway to the tool service. */
  readonly toolCallTimeoutMs: number;
  /** Largest tool result shown to a client (its JSON and text), in bytes; a larger one is an isError result. */
  readonly maxToolResultBytes: number;
  /** How long the answer to a tool's question may take: a requestState opens this long after it was handed out. */
  readonly inputStateTtlSeconds: number;
  /** Rounds of questions one tool call may go through. */
  readonly inputMaxRounds: number;
  /** Whether a tool may send the person to a plain-http link on loopback (a development stack); https otherwise. */
  readonly elicitationLoopbackHttp: boolean;
  /** Lifetime of a cached caller check; 0 checks every request. */
  readonly meCacheTtlSeconds: number;
  /** Time limit of one request to the platform. */
  readonly httpTimeoutMs: number;
  /** A 2025-11-25 session left unused this long is closed. */
  readonly sessionIdleSeconds: number;
  /** Open sessions at most, over all callers. */
  readonly maxSessions: number;
  /** Open sessions one person may hold; a new one closes their least recently used. */
  readonly maxSessionsPerCaller: number;
  /** Open streams (2025-11-25 GET streams and 2026-07-28 subscriptions/listen) in all, and per person; a new one past the person's bound ends their oldest. */
  readonly maxStreams: number;
  readonly maxStreamsPerCaller: number;
  /** How often an open stream's token is checked again at the platform; it also ends when the token expires. */
  readonly streamRecheckSeconds: number;
  /** Whether gRPC may leave loopback without TLS (a network the operator trusts). */
  readonly grpcPlaintextOffLoopback: boolean;
  /** MCP tasks (the tasks extension): how long a task's tool may run, how long its outcome is kept, how often to poll, how many may be open. */
  readonly tasks: TaskSettings;
  /**
   * The PostgreSQL database the replicas of the gateway share their registrations in (MCP_DATABASE_URL,
   * else DATABASE_URL: a role of the gateway's own where the webhook API shares the database); undefined keeps them in memory (one process).
   */
  readonly databaseUrl: string | undefined;
  /** gRPC over TLS (GRPC_TLS_*): the registry serves it and the tool services are dialled with it; undefined: plaintext, on loopback only. */
  readonly grpcTls?: GrpcTlsSettings | undefined;
  readonly logLevel: LogLevel;
}

/** The bounds of MCP tasks (TASK_*). */
export interface TaskSettings {
  /** The longest a task's tool runs; it is cancelled then. */
  readonly maxRunMs: number;
  /** How long a finished task (its result, its error) is kept for its caller to read. */
  readonly keepMs: number;
  /** The polling interval suggested to clients (pollIntervalMs). */
  readonly pollIntervalMs: number;
  /** Open tasks (working or waiting on input) one person may have, and all people together. */
  readonly maxPerCaller: number;
  readonly maxOpen: number;
  /** How often a replica marks its running tasks alive; one silent three times this long has stopped, and its tasks fail. */
  readonly heartbeatMs: number;
}

const hostList = setting.text.transform((value) =>
  value
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean),
);

/** A comma-separated list of app keys (lower-case letters, digits and dashes), blank entries ignored. */
const appKeyList = setting.text
  .transform((value) =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  )
  .refine(
    (keys) => keys.every((key) => /^[a-z0-9][a-z0-9-]*$/.test(key)),
    'must be a comma-separated list of app keys (lower-case letters, digits and dashes)',
  );

/** A comma-separated list of CIDR blocks, blank entries ignored; at least one. */
const cidrList = setting.text
  .transform((value) =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  )
  .superRefine((blocks, context) => {
    if (blocks.length === 0) context.addIssue({ code: 'custom', message: 'must list at least one network (CIDR block, such as 10.0.0.0/8)' });
    const problem = blocks.map(cidrProblem).find((found) => found !== undefined);
    if (problem) context.addIssue({ code: 'custom', message: `must be a comma-separated list of CIDR blocks: ${problem}` });
  });

const shape = {
  MCP_HOST: setting.host.default('127.0.0.1'),
  MCP_PORT: setting.httpPort.default(3000),
  MCP_PUBLIC_URL: setting.baseUrl.optional(),
  MCP_ALLOWED_HOSTS: hostList.optional(),
  MCP_ALLOWED_ORIGINS: hostList.optional(),
  ...platformAddressShape,
  MCP_GATEWAY_CLIENT_ID: setting.text.default('mcp-gateway'),
  MCP_GATEWAY_CLIENT_SECRET: setting.text,
  REGISTRY_ADDRESS: setting.hostPort.default('127.0.0.1:3001'),
  REGISTRY_ALLOWED_APPS: appKeyList.optional(),
  REGISTRY_CALLBACK_NETWORKS: cidrList.optional(),
  REGISTRY_PLAIN_NAMES_APP: setting.text
    .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be an app key (lower-case letters, digits and dashes), or none')
    .default('webhook-tools'),
  REGISTRY_MAX_TTL_SECONDS: setting.wholeNumber(5, 'seconds', 3600).default(300),
  REGISTRY_MAX_REGISTRATIONS: setting.wholeNumber(1, 'registrations', 100_000).default(1000),
  REGISTRY_MAX_REGISTRATIONS_PER_APP: setting.wholeNumber(1, 'registrations', 100_000).default(20),
  REGISTRY_MAX_TOOLS_PER_SERVICE: setting.wholeNumber(1, 'tools', 256).default(defaultCatalogLimits.maxToolsPerService),
  REGISTRY_MAX_TOOL_BYTES: setting.wholeNumber(1024, 'bytes', 1024 * 1024).default(defaultCatalogLimits.maxToolBytes),
  REGISTRY_MAX_SERVICE_BYTES: setting.wholeNumber(1024, 'bytes', 64 * 1024 * 1024).default(defaultCatalogLimits.maxServiceBytes),
  REGISTRY_MAX_APP_BYTES: setting.wholeNumber(1024, 'bytes', 256 * 1024 * 1024).default(defaultCatalogLimits.maxAppBytes),
  REGISTRY_MAX_CATALOG_BYTES: setting.wholeNumber(1024, 'bytes', 1024 * 1024 * 1024).default(defaultCatalogLimits.maxCatalogBytes),
  TOOL_CALL_TIMEOUT_MS: setting.wholeNumber(100, 'milliseconds', 600_000).default(30_000),
  MCP_MAX_TOOL_RESULT_BYTES: setting.wholeNumber(1024, 'bytes', 64 * 1024 * 1024).default(1024 * 1024),
  MCP_INPUT_STATE_TTL_SECONDS: setting.wholeNumber(10, 'seconds', 86_400).default(900),
  MCP_INPUT_MAX_ROUNDS: setting.wholeNumber(1, 'rounds', 64).default(8),
  MCP_ELICITATION_LOOPBACK_HTTP: setting.flag.default(false),
  ME_CACHE_TTL_SECONDS: setting.wholeNumber(0, 'seconds').default(60),
  PLATFORM_HTTP_TIMEOUT_MS: setting.wholeNumber(1, 'milliseconds', 600_000).default(10_000),
  MCP_SESSION_IDLE_SECONDS: setting.wholeNumber(1, 'seconds', 86_400).default(1800),
  MCP_MAX_SESSIONS: setting.wholeNumber(1, 'sessions', 1_000_000).default(10_000),
  MCP_MAX_SESSIONS_PER_CALLER: setting.wholeNumber(1, 'sessions', 1_000_000).default(100),
  MCP_MAX_STREAMS: setting.wholeNumber(1, 'streams', 1_000_000).default(1000),
  MCP_MAX_STREAMS_PER_CALLER: setting.wholeNumber(1, 'streams', 1_000_000).default(10),
  MCP_STREAM_RECHECK_SECONDS: setting.wholeNumber(1, 'seconds', 86_400).default(60),
  GRPC_PLAINTEXT_OFF_LOOPBACK: setting.flag.default(false),
  TASK_MAX_RUN_SECONDS: setting.wholeNumber(1, 'seconds', 7 * 86_400).default(3600),
  TASK_KEEP_SECONDS: setting.wholeNumber(1, 'seconds', 7 * 86_400).default(900),
  TASK_POLL_INTERVAL_MS: setting.wholeNumber(100, 'milliseconds', 600_000).default(2000),
  TASK_MAX_PER_CALLER: setting.wholeNumber(1, 'tasks', 100_000).default(16),
  TASK_MAX_OPEN: setting.wholeNumber(1, 'tasks', 10_000_000).default(2000),
  TASK_HEARTBEAT_SECONDS: setting.wholeNumber(1, 'seconds', 60).default(5),
  DATABASE_URL: setting.postgresUrl.optional(),
  MCP_DATABASE_URL: setting.postgresUrl.optional(),
  ...grpcTlsShape,
  LOG_LEVEL: setting.logLevel.default('info'),
};

/** Every variable the gateway's settings read: .env.example lists each. */
export const mcpServerVariables: readonly string[] = Object.freeze(Object.keys(shape));

const hostOf = (address: string) => address.slice(0, address.lastIndexOf(':'));

/** The gateway's own settings, as a part of its process's one settings parse. */
const mcpServerSettingsPart: SettingsPart<typeof shape, McpServerSettings> = {
  shape,
  *check(values, env) {
    yield* grpcTlsProblems(values, env);
    const plaintext = !grpcTlsAsked(env) && !values.GRPC_PLAINTEXT_OFF_LOOPBACK;
    if (values.REGISTRY_ADDRESS !== undefined && plaintext && !isLoopbackHost(hostOf(values.REGISTRY_ADDRESS))) {
      yield [
        'REGISTRY_ADDRESS',
        'must be a loopback address: gRPC carries app tokens without TLS (set GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE for TLS, or GRPC_PLAINTEXT_OFF_LOOPBACK=true only on a network you trust)',
      ];
    }
    const { REGISTRY_MAX_TOOL_BYTES: tool, REGISTRY_MAX_SERVICE_BYTES: service, REGISTRY_MAX_APP_BYTES: app, REGISTRY_MAX_CATALOG_BYTES: all } = values;
    if (tool !== undefined && service !== undefined && tool > service) yield ['REGISTRY_MAX_TOOL_BYTES', 'must not be more than REGISTRY_MAX_SERVICE_BYTES'];
    if (service !== undefined && app !== undefined && service > app) yield ['REGISTRY_MAX_SERVICE_BYTES', 'must not be more than REGISTRY_MAX_APP_BYTES'];
    if (app !== undefined && all !== undefined && app > all) yield ['REGISTRY_MAX_APP_BYTES', 'must not be more than REGISTRY_MAX_CATALOG_BYTES'];
    const url = values.MCP_PUBLIC_URL === undefined ? undefined : new URL(values.MCP_PUBLIC_URL);
    if (values.TASK_MAX_PER_CALLER !== undefined && values.TASK_MAX_OPEN !== undefined && values.TASK_MAX_PER_CALLER > values.TASK_MAX_OPEN)
      yield ['TASK_MAX_PER_CALLER', 'must not be more than TASK_MAX_OPEN'];
    if (url && url.pathname === '/') yield ['MCP_PUBLIC_URL', 'must name the MCP endpoint with its path, such as https://mcp.example.com/mcp'];
  },
  build(s) {
    const publicUrl = s.MCP_PUBLIC_URL ?? `${localOrigin(s.MCP_HOST, s.MCP_PORT)}/mcp`;
    const publicHost = new URL(publicUrl).hostname.toLowerCase();
    const loopbackNames = ['localhost', '127.0.0.1', '[::1]'];
    const unique = (names: readonly string[]) => Object.freeze([...new Set(names)]);
    return Object.freeze({
      host: s.MCP_HOST,
      port: s.MCP_PORT,
      publicUrl,
      allowedHosts: unique([publicHost, ...(s.MCP_ALLOWED_HOSTS ?? (isLoopbackHost(s.MCP_HOST) ? loopbackNames : []))]),
      allowedOrigins: unique([publicHost, ...loopbackNames, ...(s.MCP_ALLOWED_ORIGINS ?? [])]),
      ...platformAddressesOf(s),
      clientId: s.MCP_GATEWAY_CLIENT_ID,
      clientSecret: s.MCP_GATEWAY_CLIENT_SECRET,
      registryAddress: s.REGISTRY_ADDRESS,
      registryAllowedApps: s.REGISTRY_ALLOWED_APPS === undefined ? undefined : Object.freeze([...s.REGISTRY_ALLOWED_APPS]),
      registryCallbackNetworks: Object.freeze([...(s.REGISTRY_CALLBACK_NETWORKS ?? loopbackNetworks)]),
      registryPlainNamesApp: s.REGISTRY_PLAIN_NAMES_APP === 'none' ? undefined : s.REGISTRY_PLAIN_NAMES_APP,
      registrationMaxTtlSeconds: s.REGISTRY_MAX_TTL_SECONDS,
      registryMaxRegistrations: s.REGISTRY_MAX_REGISTRATIONS,
      registryMaxRegistrationsPerApp: s.REGISTRY_MAX_REGISTRATIONS_PER_APP,
      catalogLimits: Object.freeze({
        maxToolsPerService: s.REGISTRY_MAX_TOOLS_PER_SERVICE,
        maxToolBytes: s.REGISTRY_MAX_TOOL_BYTES,
        maxServiceBytes: s.REGISTRY_MAX_SERVICE_BYTES,
        maxAppBytes: s.REGISTRY_MAX_APP_BYTES,
        maxCatalogBytes: s.REGISTRY_MAX_CATALOG_BYTES,
      }),
      toolCallTimeoutMs: s.TOOL_CALL_TIMEOUT_MS,
      maxToolResultBytes: s.MCP_MAX_TOOL_RESULT_BYTES,
      inputStateTtlSeconds: s.MCP_INPUT_STATE_TTL_SECONDS,
      inputMaxRounds: s.MCP_INPUT_MAX_ROUNDS,
      elicitationLoopbackHttp: s.MCP_ELICITATION_LOOPBACK_HTTP,
      meCacheTtlSeconds: s.ME_CACHE_TTL_SECONDS,
      httpTimeoutMs: s.PLATFORM_HTTP_TIMEOUT_MS,
      sessionIdleSeconds: s.MCP_SESSION_IDLE_SECONDS,
      maxSessions: s.MCP_MAX_SESSIONS,
      maxSessionsPerCaller: s.MCP_MAX_SESSIONS_PER_CALLER,
      maxStreams: s.MCP_MAX_STREAMS,
      maxStreamsPerCaller: s.MCP_MAX_STREAMS_PER_CALLER,
      streamRecheckSeconds: s.MCP_STREAM_RECHECK_SECONDS,
      grpcPlaintextOffLoopback: s.GRPC_PLAINTEXT_OFF_LOOPBACK,
      tasks: Object.freeze({
        maxRunMs: s.TASK_MAX_RUN_SECONDS * 1000,
        keepMs: s.TASK_KEEP_SECONDS * 1000,
        pollIntervalMs: s.TASK_POLL_INTERVAL_MS,
        maxPerCaller: s.TASK_MAX_PER_CALLER,
        maxOpen: s.TASK_MAX_OPEN,
        heartbeatMs: s.TASK_HEARTBEAT_SECONDS * 1000,
      }),
      databaseUrl: s.MCP_DATABASE_URL ?? s.DATABASE_URL,
      grpcTls: toGrpcTlsSettings(s),
      logLevel: s.LOG_LEVEL,
    });
  },
};

/** Reads the gateway's settings; throws SETTINGS_INVALID naming every bad variable. */
export function loadMcpServerSettings(env: Environment): McpServerSettings {
  return parseSettings(env, { settings: mcpServerSettingsPart }).settings;
}

/** Everything the gateway's process reads from its environment: its settings, who may read /metrics, its tracing. */
export interface McpServerProcessSettings {
  readonly settings: McpServerSettings;
  readonly metrics: MetricsSettings;
  readonly telemetry: TelemetrySettings;
}

/** Reads all of the gateway's process settings in one parse: one SETTINGS_INVALID message names every bad variable of every group. */
export function loadMcpServerProcessSettings(env: Environment, service = 'mcp-server'): McpServerProcessSettings {
  return parseSettings(env, { settings: mcpServerSettingsPart, metrics: metricsSettingsPart('MCP_'), telemetry: telemetrySettingsPart(service) });
}
