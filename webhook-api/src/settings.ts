// The webhook API's settings, read once from the environment in the SDK's vocabulary; every bad
// variable named at once, no value ever echoed (DATABASE_URL and WEBHOOK_ENCRYPTION_KEY hold secrets).
import { resolve } from 'node:path';
import { parseEnvironment, setting, type Environment, type LogLevel } from '@platform/shared';
import { z } from 'zod';
import { parseKeyRing, type EncryptionKey } from './credential-vault.ts';
import { defaultLimits, type WebhookLimits } from './limits.ts';

export interface WebhookApiSettings {
  readonly host: string;
  readonly port: number;
  /** The platform API's base: where the caller check asks, and the audience this API accepts. */
  readonly platformApiBaseUrl: string;
  readonly meCacheTtlSeconds: number;
  readonly platformTimeoutMs: number;
  /** PostgreSQL when set; otherwise the SQLite file under dataDir. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** The configured key ring, current key first; a generated key file under dataDir when unset. */
  readonly encryptionKeys: readonly EncryptionKey[] | undefined;
  readonly limits: WebhookLimits;
  readonly logLevel: LogLevel;
}

/** The key ring, checked here so a bad key stops start-up with a line naming the variable, never the key. */
const keyRing = z.string().transform((value, context) => {
  try {
    return parseKeyRing(value);
  } catch (error) {
    context.addIssue({ code: 'custom', message: `is malformed: ${(error as Error).message.replace(/^WEBHOOK_ENCRYPTION_KEY /, '')}` });
    return z.NEVER;
  }
});

const shape = {
  WEBHOOK_API_HOST: setting.host.default('127.0.0.1'),
  WEBHOOK_API_PORT: setting.port.default(4100),
  PLATFORM_API_BASE_URL: setting.baseUrl.default('http://127.0.0.1:4000'),
  ME_CACHE_TTL_SECONDS: setting.wholeNumber(0, 'seconds').default(60),
  PLATFORM_HTTP_TIMEOUT_MS: setting.wholeNumber(1, 'milliseconds').default(10_000),
  DATABASE_URL: setting.postgresUrl.optional(),
  WEBHOOK_DATA_DIR: setting.text.default('data'),
  WEBHOOK_ENCRYPTION_KEY: keyRing.optional(),
  WEBHOOK_MAX_CONFIGS_PER_COMPANY: setting.wholeNumber(1, 'configurations').default(defaultLimits.configsPerCompany),
  WEBHOOK_MAX_DEVICES_PER_CONFIG: setting.wholeNumber(1, 'devices').default(defaultLimits.devicesPerConfig),
  WEBHOOK_MAX_SCOPES_PER_LINK: setting.wholeNumber(1, 'scopes').default(defaultLimits.scopesPerLink),
  LOG_LEVEL: setting.logLevel.default('info'),
};

export function loadWebhookApiSettings(env: Environment): WebhookApiSettings {
  const s = parseEnvironment(shape, env);
  return Object.freeze({
    host: s.WEBHOOK_API_HOST,
    port: s.WEBHOOK_API_PORT,
    platformApiBaseUrl: s.PLATFORM_API_BASE_URL,
    meCacheTtlSeconds: s.ME_CACHE_TTL_SECONDS,
    platformTimeoutMs: s.PLATFORM_HTTP_TIMEOUT_MS,
    databaseUrl: s.DATABASE_URL,
    dataDir: resolve(s.WEBHOOK_DATA_DIR),
    encryptionKeys: s.WEBHOOK_ENCRYPTION_KEY,
    limits: Object.freeze({
      configsPerCompany: s.WEBHOOK_MAX_CONFIGS_PER_COMPANY,
      devicesPerConfig: s.WEBHOOK_MAX_DEVICES_PER_CONFIG,
      scopesPerLink: s.WEBHOOK_MAX_SCOPES_PER_LINK,
    }),
    logLevel: s.LOG_LEVEL,
  });
}
