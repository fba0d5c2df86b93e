// pino loggers that never write a token, secret or credential: every such key is censored by
// configuration at any depth up to four levels, so a careless log line cannot leak one.
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

const depthPrefixes = ['', '*.', '*.*.', '*.*.*.'];

export const redactPaths: readonly string[] = redactedKeys.flatMap((key) => {
  const segment = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
  return depthPrefixes.map((prefix) => (segment.startsWith('[') ? `${prefix.replace(/\.$/, '')}${segment}` : `${prefix}${segment}`));
});

export interface LoggerOptions {
  /** The service name, written on every line. */
  name: string;
  level?: LevelWithSilent;
  /** Where lines go; standard output by default. */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      redact: { paths: [...redactPaths], censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err },
    },
    options.destination,
  );
}

export type { Logger } from 'pino';
