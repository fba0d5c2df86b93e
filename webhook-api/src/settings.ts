// The webhook API's settings, read once from the environment; every bad variable named at once.
import { resolve } from 'node:path';
import { parseEnvironment } from '@platform/shared';
import { z } from 'zod';

export interface WebhookApiSettings {
  readonly host: string;
  readonly port: number;
  readonly platformApiBaseUrl: string;
  readonly meCacheTtlSeconds: number;
  readonly platformTimeoutMs: number;
  /** PostgreSQL when set; otherwise the SQLite file under dataDir. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** `id:base64key[,id:base64key...]`, current key first; a generated key file under dataDir when unset. */
  readonly encryptionKey: string | undefined;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

const whole = (min: number) => z.string().regex(/^\d+$/, `must be a whole number, ${min} or more`).transform(Number).refine((n) => n >= min, `must be ${min} or more`);

const shape = {
  WEBHOOK_API_HOST: z.string().min(1).default('127.0.0.1'),
  WEBHOOK_API_PORT: whole(0).refine((n) => n < 65_536, 'must be a port number').default(4100),
  PLATFORM_API_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' }).transform((u) => u.replace(/\/+$/, '')).default('http://127.0.0.1:4000'),
  ME_CACHE_TTL_SECONDS: whole(0).default(60),
  PLATFORM_HTTP_TIMEOUT_MS: whole(1).default(10_000),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  WEBHOOK_DATA_DIR: z.string().min(1).default('data'),
  WEBHOOK_ENCRYPTION_KEY: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

export function loadWebhookApiSettings(env: Readonly<Record<string, string | undefined>>): WebhookApiSettings {
  // Values are never echoed: DATABASE_URL and WEBHOOK_ENCRYPTION_KEY hold secrets.
  const s = parseEnvironment(shape, env);
  return Object.freeze({
    host: s.WEBHOOK_API_HOST,
    port: s.WEBHOOK_API_PORT,
    platformApiBaseUrl: s.PLATFORM_API_BASE_URL,
    meCacheTtlSeconds: s.ME_CACHE_TTL_SECONDS,
    platformTimeoutMs: s.PLATFORM_HTTP_TIMEOUT_MS,
    databaseUrl: s.DATABASE_URL,
    dataDir: resolve(s.WEBHOOK_DATA_DIR),
    encryptionKey: s.WEBHOOK_ENCRYPTION_KEY,
    logLevel: s.LOG_LEVEL,
  });
}
