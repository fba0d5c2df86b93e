// Settings of an app and of a tool service, read from the environment once at start, validated
// with zod and frozen. Every bad variable is named in one message; secrets have no default.
import { z } from 'zod';
import { PlatformError } from './errors.ts';
import { isLoopbackHost } from './loopback.ts';

export interface PlatformAppSettings {
  /** Base address of the platform API, without a trailing slash. */
  readonly apiBaseUrl: string;
  /** The platform's OAuth issuer (token endpoint found by discovery); defaults to apiBaseUrl. */
  readonly issuerUrl: string;
  /** Base address of the platform's AI service. */
  readonly platformAiBaseUrl: string;
  readonly appClientId: string;
  /** Read from the environment only; never logged, never given a default. */
  readonly appClientSecret: string;
  /** Lifetime of a cached caller check; 0 checks on every call. */
  readonly meCacheTtlSeconds: number;
  /** Time limit of one request to the platform. */
  readonly httpTimeoutMs: number;
}

export interface PlatformMcpSettings extends PlatformAppSettings {
  /** The MCP server's tool registry, host:port. */
  readonly gatewayAddress: string;
  /** Where the gateway reaches this tool service, host:port. */
  readonly callbackAddress: string;
  readonly serviceName: string;
  /** Requested lifetime of the registration at the gateway. */
  readonly ttlSeconds: number;
}

export type Environment = Readonly<Record<string, string | undefined>>;

const required = (what: string) => ({
  error: (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`),
});

/** An http(s) base address; plain http only on loopback, where no traffic leaves the machine. */
const baseUrl = z
  .string(required('an http or https URL'))
  .trim()
  .refine((value) => URL.canParse(value), 'must be an absolute http or https URL')
  .transform((value) => new URL(value))
  .refine((url) => url.protocol === 'https:' || url.protocol === 'http:', 'must be an absolute http or https URL')
  .refine(
    (url) => url.protocol === 'https:' || isLoopbackHost(url.hostname),
    'must use https (plain http is allowed on loopback only)',
  )
  .refine((url) => !url.username && !url.password && !url.search && !url.hash, 'must not carry credentials, a query or a fragment')
  .transform((url) => url.href.replace(/\/+$/, ''));

const wholeNumber = (min: number, unit: string) =>
  z
    .string(required(`a whole number of ${unit}`))
    .trim()
    .regex(/^\d+$/, `must be a whole number of ${unit}, ${min} or more`)
    .transform(Number)
    .refine((n) => n >= min && Number.isSafeInteger(n), `must be a whole number of ${unit}, ${min} or more`);

const hostPort = z
  .string(required('host:port'))
  .trim()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'must be host:port');

const text = z.string(required('text')).trim().min(1, 'must not be empty');

const appShape = {
  PLATFORM_API_BASE_URL: baseUrl.default('http://127.0.0.1:4000'),
  PLATFORM_ISSUER_URL: baseUrl.optional(),
  PLATFORM_AI_BASE_URL: baseUrl.default('http://127.0.0.1:4001'),
  APP_CLIENT_ID: text,
  APP_CLIENT_SECRET: text,
  ME_CACHE_TTL_SECONDS: wholeNumber(0, 'seconds').default(60),
  PLATFORM_HTTP_TIMEOUT_MS: wholeNumber(1, 'milliseconds').default(10_000),
};

const mcpShape = {
  ...appShape,
  GATEWAY_ADDRESS: hostPort.default('127.0.0.1:3001'),
  CALLBACK_ADDRESS: hostPort.default('127.0.0.1:50051'),
  SERVICE_NAME: text.regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes'),
  TOOL_REGISTRATION_TTL_SECONDS: wholeNumber(1, 'seconds').default(30),
};

/**
 * Parses the variables a schema names, for any service's settings: an empty variable counts as
 * unset, and every bad variable is named in one SETTINGS_INVALID message (values never echoed).
 */
export function parseEnvironment<Shape extends z.ZodRawShape>(shape: Shape, env: Environment): z.output<z.ZodObject<Shape>> {
  const input = Object.fromEntries(
    Object.keys(shape).map((key) => [key, env[key] === '' ? undefined : env[key]]),
  );
  const result = z.object(shape).safeParse(input);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
    throw new PlatformError('SETTINGS_INVALID', `Invalid settings: ${problems.join('; ')}.`);
  }
  return result.data;
}

function toAppSettings(parsed: z.output<z.ZodObject<typeof appShape>>): PlatformAppSettings {
  return {
    apiBaseUrl: parsed.PLATFORM_API_BASE_URL,
    issuerUrl: parsed.PLATFORM_ISSUER_URL ?? parsed.PLATFORM_API_BASE_URL,
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
  const parsed = parseEnvironment(mcpShape, env);
  return Object.freeze({
    ...toAppSettings(parsed),
    gatewayAddress: parsed.GATEWAY_ADDRESS,
    callbackAddress: parsed.CALLBACK_ADDRESS,
    serviceName: parsed.SERVICE_NAME,
    ttlSeconds: parsed.TOOL_REGISTRATION_TTL_SECONDS,
  });
}
