// The words every service's settings are written in: one zod schema per kind of environment
// variable, so that a base URL, a port or a log level means the same thing in every loader, and
// parseEnvironment, which reads them all and names every bad variable in one message.
import { accessSync, constants, statSync } from 'node:fs';
import { z } from 'zod';
import { PlatformError } from '../errors/platform-error.ts';
import { fetchBlockedPortReason, isFetchBlockedPort } from '../http/fetch-blocked-ports.ts';
import { isLoopbackHost } from '../http/loopback.ts';

/** Environment variables by name, as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

const expected = (what: string) => ({
  error: (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`),
});

const parseBaseUrl = (value: string, context: z.RefinementCtx): string => {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    context.addIssue({ code: 'custom', message: 'must be an absolute http or https URL' });
  } else if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    context.addIssue({ code: 'custom', message: 'must use https (plain http is allowed on loopback only, where tokens do not leave the machine)' });
  } else if (url.username || url.password || url.search || url.hash) {
    context.addIssue({ code: 'custom', message: 'must not carry credentials, a query or a fragment' });
  } else if (url.port !== '' && isFetchBlockedPort(Number(url.port))) {
    context.addIssue({ code: 'custom', message: `must not use port ${url.port}: ${fetchBlockedPortReason}` });
  }
  return url ? url.href.replace(/\/+$/, '') : value;
};

/** An http(s) base address without a trailing slash; plain http only on loopback; never on a port fetch refuses. */
const baseUrl = z.string(expected('an http or https URL')).trim().transform(parseBaseUrl);

/** An origin (scheme, host, port) in the rules of `baseUrl`: where a service reaches another, without a path. */
const origin = baseUrl.refine((value) => !URL.canParse(value) || new URL(value).pathname === '/', 'must be an origin (scheme, host and port), without a path');

/** A comma-separated list of base addresses (blank entries ignored). */
const baseUrlList = z
  .string(expected('a comma-separated list of http or https URLs'))
  .transform((value) =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  )
  .pipe(z.array(baseUrl));

/** A whole number from `min` (to `max`), in `unit` for the messages. */
const wholeNumber = (min: number, unit: string, max = Number.MAX_SAFE_INTEGER) => {
  const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
  return z
    .string(expected(`a whole number of ${unit}`))
    .trim()
    .regex(/^\d+$/, `must be a whole number of ${unit}, ${range}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max && Number.isSafeInteger(n), `must be a whole number of ${unit}, ${range}`);
};

/** A TCP port; 0 lets the system choose. For a port HTTP clients reach, `httpPort`. */
const port = z
  .string(expected('a port number'))
  .trim()
  .regex(/^\d{1,5}$/, 'must be a port number (0 to 65535)')
  .transform(Number)
  .refine((n) => n <= 65_535, 'must be a port number (0 to 65535)');

/**
 * A port that HTTP clients reach (a service's HTTP port, the demo's receiver): a port fetch refuses
 * is refused here, at start, rather than found by a client that can never connect. gRPC and
 * database ports are not fetched and stay `port`.
 */
const httpPort = port.superRefine((n, context) => {
  if (isFetchBlockedPort(n)) context.addIssue({ code: 'custom', message: `must not be ${n}: ${fetchBlockedPortReason}` });
});

/** A host name or IP address to listen on or connect to. */
const host = z
  .string(expected('a host name or IP address'))
  .trim()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.:-]+)$/, 'must be a host name or IP address');

const hostPort = z
  .string(expected('host:port'))
  .trim()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'must be host:port');

const text = z.string(expected('text')).trim().min(1, 'must not be empty');

const flag = z.enum(['true', 'false'], expected('true or false')).transform((value) => value === 'true');

/** The log levels `LOG_LEVEL` accepts. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const satisfies readonly LogLevel[];
/** A log level a service accepts. Written out, not derived from `logLevels`, so the public type needs no internal value. */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const logLevel = z.enum(logLevels, expected(`one of ${logLevels.join(', ')}`));

const postgresUrl = z
  .string(expected('a postgres:// URL'))
  .trim()
  .refine((value) => /^postgres(ql)?:\/\//.test(value) && URL.canParse(value), 'must be a postgres:// URL');

/** Why a file cannot be read, in words: a file's path is named in a message, its content never. */
export function unreadableFileReason(path: string): string | undefined {
  try {
    if (statSync(path).isDirectory()) return 'is a folder, not a file';
    accessSync(path, constants.R_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'no such file' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? 'unreadable');
  }
}

/** A file this process can read (a certificate, a key): `cannot read <path>: <why>` otherwise. */
const file = z
  .string(expected('the path of a file'))
  .trim()
  .min(1, 'must not be empty')
  .superRefine((path, context) => {
    const reason = unreadableFileReason(path);
    if (reason !== undefined) context.addIssue({ code: 'custom', message: `cannot read ${path}: ${reason}` });
  });

/** The kinds of setting; each service's loader builds its schema from these. */
export const setting = { baseUrl, origin, baseUrlList, wholeNumber, port, httpPort, host, hostPort, text, flag, logLevel, postgresUrl, file };

/** Problems only visible across variables: [variable, message] pairs, given the values that parsed. */
export type CrossCheck<Values> = (values: Partial<Values>) => Iterable<readonly [variable: string, message: string]>;

/**
 * Parses the variables a shape names, for any service's settings: an empty variable counts as
 * unset; every bad variable, and every cross-variable problem, is named in one SETTINGS_INVALID
 * message; values are never echoed (some are secrets).
 */
export function parseEnvironment<Shape extends z.ZodRawShape>(
  shape: Shape,
  env: Environment,
  crossCheck?: CrossCheck<z.output<z.ZodObject<Shape>>>,
): z.output<z.ZodObject<Shape>> {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(shape) as [string, z.ZodType][]) {
    const result = schema.safeParse(env[name] === '' ? undefined : env[name]);
    if (result.success) values[name] = result.data;
    else problems.push(...result.error.issues.map((issue) => `${name} ${issue.message}`));
  }
  const parsed = values as z.output<z.ZodObject<Shape>>;
  for (const [name, message] of crossCheck?.(parsed) ?? []) problems.push(`${name} ${message}`);
  if (problems.length > 0) throw new PlatformError('SETTINGS_INVALID', `Invalid settings: ${problems.join('; ')}.`);
  return parsed;
}

/**
 * One group of a process's settings (the service's own, its metrics, its telemetry): the variables
 * it reads, the problems only visible across them, and what it makes of their values. A process
 * reads all its groups in one parseSettings, so that one message names every bad variable.
 */
export interface SettingsPart<Shape extends z.ZodRawShape, Settings> {
  readonly shape: Shape;
  /** Problems across variables, given the values that parsed and the environment. */
  readonly check?: (values: Partial<z.output<z.ZodObject<Shape>>>, env: Environment) => Iterable<readonly [variable: string, message: string]>;
  readonly build: (values: z.output<z.ZodObject<Shape>>, env: Environment) => Settings;
}

/** A part of any shape, as parseSettings takes them. */
interface AnySettingsPart {
  readonly shape: z.ZodRawShape;
  readonly check?: (values: never, env: Environment) => Iterable<readonly [variable: string, message: string]>;
  readonly build: (values: never, env: Environment) => unknown;
}

/**
 * Reads every group of a process's settings in one pass over the environment: each part's
 * variables and cross-checks, every problem of every part named in one SETTINGS_INVALID message,
 * then each part's settings by its name. A variable two parts read must mean the same in both.
 */
export function parseSettings<Parts extends Readonly<Record<string, AnySettingsPart>>>(
  env: Environment,
  parts: Parts,
): { readonly [Name in keyof Parts]: ReturnType<Parts[Name]['build']> } {
  const all = Object.values(parts);
  const shape: z.ZodRawShape = Object.fromEntries(all.flatMap((part) => Object.entries(part.shape)));
  const values = parseEnvironment(shape, env, function* crossCheck(parsed) {
    for (const part of all) yield* part.check?.(parsed as never, env) ?? [];
  });
  const built = Object.entries(parts).map(([name, part]) => [name, part.build(values as never, env)]);
  return Object.freeze(Object.fromEntries(built)) as { readonly [Name in keyof Parts]: ReturnType<Parts[Name]['build']> };
}
