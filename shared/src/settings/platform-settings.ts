// Settings of an app and of a tool service, read from the environment once at start, validated
// with zod and frozen. Every bad variable is named in one message; secrets have no default.
import { z } from 'zod';
import { grpcTlsAsked, grpcTlsProblems, grpcTlsShape, toGrpcTlsSettings, type GrpcTlsSettings } from '../grpc/tls-settings.ts';
import { isLoopbackHost } from '../http/loopback.ts';
import { parseEnvironment, parseSettings, setting, type CrossCheck, type Environment, type SettingsPart } from './vocabulary.ts';

/** An app's settings: the platform API and AI service addresses, the app's client id and secret, the caller check's cache lifetime. */
export interface PlatformAppSettings {
  /** Base address of the platform API, without a trailing slash. */
  readonly apiBaseUrl: string;
  /** The platform's OAuth issuer (token endpoint found by discovery); defaults to apiBaseUrl. */
  readonly issuerUrl: string;
  /**
   * Where this process sends its requests for the platform's API and issuer (the back channel), when
   * their addresses, which identify the platform, are not reachable from here; undefined: sent to them.
   */
  readonly backChannelUrl?: string | undefined;
  /** Base address of the platform's AI service. */
  readonly platformAiBaseUrl: string;
  /** The app's OAuth client id (`APP_CLIENT_ID`). */
  readonly appClientId: string;
  /** Read from the environment only; never logged, never given a default. */
  readonly appClientSecret: string;
  /** Lifetime of a cached caller check; 0 checks on every call. */
  readonly meCacheTtlSeconds: number;
  /** Time limit of one request to the platform. */
  readonly httpTimeoutMs: number;
}

/** A tool service's settings: the app's, plus the gateway's address, the service's callback address, name and registration lifetime. */
export interface PlatformMcpSettings extends PlatformAppSettings {
  /** The MCP server's tool registry, host:port. */
  readonly gatewayAddress: string;
  /** Where the gateway reaches this tool service, host:port. */
  readonly callbackAddress: string;
  /** The name the service registers under at the gateway (`SERVICE_NAME`). */
  readonly serviceName: string;
  /** Requested lifetime of the registration at the gateway. */
  readonly ttlSeconds: number;
  /** gRPC over TLS (GRPC_TLS_*): served on the callback address and used to reach the gateway; undefined: plaintext, on loopback only. */
  readonly grpcTls?: GrpcTlsSettings | undefined;
}

/** The platform's addresses, read alike by every process that calls it: its API, its issuer, the back channel to both. */
export const platformAddressShape = {
  PLATFORM_API_BASE_URL: setting.baseUrl.default('http://127.0.0.1:4000'),
  PLATFORM_ISSUER_URL: setting.baseUrl.optional(),
  PLATFORM_BACKCHANNEL_URL: setting.origin.optional(),
};

/** The settings of `platformAddressShape`'s variables; the issuer is the API's unless set apart. */
export function platformAddressesOf(
  values: z.output<z.ZodObject<typeof platformAddressShape>>,
): Pick<PlatformAppSettings, 'apiBaseUrl' | 'issuerUrl' | 'backChannelUrl'> {
  return {
    apiBaseUrl: values.PLATFORM_API_BASE_URL,
    issuerUrl: values.PLATFORM_ISSUER_URL ?? values.PLATFORM_API_BASE_URL,
    ...(values.PLATFORM_BACKCHANNEL_URL !== undefined && { backChannelUrl: values.PLATFORM_BACKCHANNEL_URL }),
  };
}

const appShape = {
  ...platformAddressShape,
  PLATFORM_AI_BASE_URL: setting.baseUrl.default('http://127.0.0.1:4001'),
  APP_CLIENT_ID: setting.text,
  APP_CLIENT_SECRET: setting.text,
  ME_CACHE_TTL_SECONDS: setting.wholeNumber(0, 'seconds').default(60),
  // Bounded so that timers can hold them: Node fires a timer past 2^31 - 1 ms at once.
  PLATFORM_HTTP_TIMEOUT_MS: setting.wholeNumber(1, 'milliseconds', 600_000).default(10_000),
};

const mcpShape = {
  ...appShape,
  GATEWAY_ADDRESS: setting.hostPort.default('127.0.0.1:3001'),
  CALLBACK_ADDRESS: setting.hostPort.default('127.0.0.1:50051'),
  SERVICE_NAME: setting.text.regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be 1 to 64 lower-case letters, digits and dashes'),
  TOOL_REGISTRATION_TTL_SECONDS: setting.wholeNumber(1, 'seconds', 86_400).default(30),
  GRPC_PLAINTEXT_OFF_LOOPBACK: setting.flag.default(false),
  ...grpcTlsShape,
};

/** Every variable a tool service's SDK settings read, the app's among them: .env.example lists each. */
export const platformMcpVariables: readonly string[] = Object.freeze(Object.keys(mcpShape));

type McpValues = z.output<z.ZodObject<typeof mcpShape>>;

const hostOf = (address: string) => address.slice(0, address.lastIndexOf(':'));

/**
 * gRPC between the gateway and a tool service carries the app's token and the delegated token:
 * over TLS anywhere; without it, off loopback only when the operator says the network is trusted.
 */
const grpcIsProtected = (env: Environment): CrossCheck<McpValues> =>
  function* (values) {
    yield* grpcTlsProblems(values, env);
    if (grpcTlsAsked(env)) return;
    yield* grpcStaysOnLoopback(values);
  };

function* grpcStaysOnLoopback(values: Partial<McpValues>): Iterable<readonly [string, string]> {
  if (values.GRPC_PLAINTEXT_OFF_LOOPBACK) return;
  const why =
    'must be a loopback address: gRPC carries tokens without TLS (set GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE for TLS, or GRPC_PLAINTEXT_OFF_LOOPBACK=true only on a network you trust)';
  for (const name of ['GATEWAY_ADDRESS', 'CALLBACK_ADDRESS'] as const) {
    const address = values[name];
    if (address !== undefined && !isLoopbackHost(hostOf(address))) yield [name, why];
  }
}

function toAppSettings(parsed: z.output<z.ZodObject<typeof appShape>>): PlatformAppSettings {
  return {
    ...platformAddressesOf(parsed),
    platformAiBaseUrl: parsed.PLATFORM_AI_BASE_URL,
    appClientId: parsed.APP_CLIENT_ID,
    appClientSecret: parsed.APP_CLIENT_SECRET,
    meCacheTtlSeconds: parsed.ME_CACHE_TTL_SECONDS,
    httpTimeoutMs: parsed.PLATFORM_HTTP_TIMEOUT_MS,
  };
}

/** Reads `PlatformAppSettings` from the environment; throws SETTINGS_INVALID naming every bad variable. */
export function loadPlatformAppSettings(env: Environment): PlatformAppSettings {
  return Object.freeze(toAppSettings(parseEnvironment(appShape, env)));
}

/** Reads `PlatformMcpSettings` (a tool service's settings) from the environment. */
export function loadPlatformMcpSettings(env: Environment): PlatformMcpSettings {
  return loadToolServiceSettingsWith(env, {}).settings;
}

/** A tool service's own variables, read in the same pass as the SDK's, and its defaults for the SDK's. */
export interface ToolServiceSettingsOptions<Own extends z.ZodRawShape> {
  /** The service's own variables, in the settings vocabulary (`setting.*`). */
  readonly own?: Own;
  /** What the service is when the environment does not say (an empty variable counts as unset): `SERVICE_NAME`, `APP_CLIENT_ID`... never a secret. */
  readonly defaults?: Readonly<Record<string, string>>;
}

/** A tool service's settings and its own variables, as they come out of toolServiceSettingsPart. */
export interface ToolServiceSettingsWith<Own extends z.ZodRawShape> {
  readonly settings: PlatformMcpSettings;
  readonly own: Readonly<z.output<z.ZodObject<Own>>>;
}

/**
 * The SDK's tool-service variables and a service's own, as a part of the service's one settings
 * parse (beside its metrics and telemetry); the service's defaults stand for unset or empty variables.
 */
export function toolServiceSettingsPart<Own extends z.ZodRawShape = z.ZodRawShape>(
  options: ToolServiceSettingsOptions<Own>,
): SettingsPart<z.ZodRawShape, ToolServiceSettingsWith<Own>> {
  const defaults = options.defaults ?? {};
  const shape: Record<string, z.ZodType> = { ...mcpShape, ...options.own };
  for (const [name, value] of Object.entries(defaults)) {
    const schema = shape[name];
    if (schema) shape[name] = z.preprocess((given) => given ?? value, schema);
  }
  const withDefaults = (env: Environment): Environment => {
    const defaulted = { ...env };
    for (const [name, value] of Object.entries(defaults)) if (!defaulted[name]) defaulted[name] = value;
    return defaulted;
  };
  return {
    shape,
    check: (values, env) => grpcIsProtected(withDefaults(env))(values),
    build: (values) => {
      const parsed = values as McpValues & Record<string, unknown>;
      const settings = Object.freeze({
        ...toAppSettings(parsed),
        gatewayAddress: parsed.GATEWAY_ADDRESS,
        callbackAddress: parsed.CALLBACK_ADDRESS,
        serviceName: parsed.SERVICE_NAME,
        ttlSeconds: parsed.TOOL_REGISTRATION_TTL_SECONDS,
        grpcTls: toGrpcTlsSettings(parsed),
      });
      const own = Object.freeze(Object.fromEntries(Object.keys(options.own ?? {}).map((name) => [name, parsed[name]]))) as z.output<z.ZodObject<Own>>;
      return { settings, own };
    },
  };
}

/**
 * A tool service's settings and its own variables, read in one pass: every bad variable, the
 * SDK's and the service's, is named in one SETTINGS_INVALID message.
 */
export function loadToolServiceSettingsWith<Own extends z.ZodRawShape = z.ZodRawShape>(
  env: Environment,
  options: ToolServiceSettingsOptions<Own>,
): { readonly settings: PlatformMcpSettings; readonly own: Readonly<z.output<z.ZodObject<Own>>> } {
  return parseSettings(env, { tool: toolServiceSettingsPart(options) }).tool;
}
