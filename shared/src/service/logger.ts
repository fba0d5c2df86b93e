// pino loggers that never write a token, secret or credential: every such key, in any letter case,
// is censored at any depth up to four levels, in a line's object and in a child's bindings, so a
// careless log line cannot leak one.
//
// Why not pino's `redact` paths: to reach four levels deep they must be wildcards (`*.*.token`),
// and @pinojs/redact clones and walks the object once per path: 96 paths cost 130-170 µs a line,
// the largest part of a tool call's cost. One pass over the keys against a set costs about 5 µs,
// copies only what it censors, and also catches `Authorization` in another letter case.
import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

/** Keys whose values are never logged, wherever they appear in a log object. */
export const redactedKeys = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'token',
  'accessToken',
  'access_token',
  'refresh_token',
  'id_token',
  'subject_token',
  'actor_token',
  'authToken',
  'delegatedToken',
  'apiToken',
  'clientSecret',
  'client_secret',
  'appClientSecret',
  'password',
  'secret',
  'authPayload',
  'apiKeyValue',
  'credentials',
  'encryptionKey',
] as const;

const censoredKeys: ReadonlySet<string> = new Set(redactedKeys.map((key) => key.toLowerCase()));
const censor = '[redacted]';
const maxDepth = 4;

/**
 * `value` with every censored key's value replaced, to `maxDepth` levels; objects and arrays are
 * copied only where something is censored. An error is serialized first (type, message, stack
 * with its causes, and its own properties), so a token an error carries is censored too.
 */
export function redactSecrets<T>(value: T, depth = 0): T {
  if (depth >= maxDepth || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return redactSecrets(pino.stdSerializers.err(value), depth) as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, index) => {
      const redacted = redactSecrets(item, depth + 1);
      if (redacted !== item) (copy ??= [...value])[index] = redacted;
    });
    return (copy ?? value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const redacted = censoredKeys.has(key.toLowerCase()) ? censor : redactSecrets(item, depth + 1);
    if (redacted !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = redacted;
  }
  return (copy ?? value) as T;
}

/** A logger's name, level and destination. */
export interface LoggerOptions {
  /** The service name, written on every line. */
  name: string;
  /** The lowest level written; `info` when not given. */
  level?: LevelWithSilent;
  /** Where lines go; standard output by default. */
  destination?: DestinationStream;
}

/** A pino logger that censors tokens, secrets and credentials at any depth up to four levels. */
export function createLogger(options: LoggerOptions): Logger {
  const logger = pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      formatters: { log: redactSecrets },
      // Errors are already serialized (and censored) by the log formatter; a raw one is still serialized.
      serializers: { err: (value: unknown) => (value instanceof Error ? pino.stdSerializers.err(value) : value) },
    },
    // Synchronous writes to standard output by default: a line is out when the call returns, and a
    // reader that went away (EPIPE) silences the logger at once. The asynchronous default buffers,
    // and its flush at exit retries a write to a broken pipe forever, so a service whose parent
    // died (npm start's runner, killed) would never exit.
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
  // A child's bindings do not pass the formatters (pino resets them for children), so they are
  // censored here, as are later ones; every descendant inherits these methods, as pino builds
  // children on their parent.
  const child = Reflect.get(logger, 'child'); // read off the instance, called with each child's own this
  logger.child = function (this: Logger, bindings, childOptions) {
    return child.call(this, redactSecrets(bindings), childOptions);
  } as Logger['child'];
  const setBindings = Reflect.get(logger, 'setBindings');
  logger.setBindings = function (this: Logger, bindings) {
    setBindings.call(this, redactSecrets(bindings));
  };
  return logger;
}

export type { Logger } from 'pino';
