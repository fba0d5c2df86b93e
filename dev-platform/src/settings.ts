// The dev platform's settings, read once from the environment; every bad variable named at once.
import { resolve } from 'node:path';
import { parseEnvironment } from '@platform/shared';
import { z } from 'zod';

export interface DevPlatformSettings {
  readonly host: string;
  readonly port: number;
  /** The issuer and the platform API's base address (one origin, as on the real platform). */
  readonly issuer: string;
  /** The "other platform service" (AI embeddings stand-in), which refuses delegated tokens. */
  readonly aiPort: number;
  readonly aiBaseUrl: string;
  readonly seedPath: string;
  readonly tokenExchangeEnabled: boolean;
  /** Resources a person's token may be issued for besides the platform API (the MCP server). */
  readonly extraResources: readonly string[];
  /** Lifetime of a person's access token. */
  readonly accessTokenTtlSeconds: number;
  /** Lifetime of an app's client-credentials token. */
  readonly clientCredentialsTtlSeconds: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

export type Environment = Readonly<Record<string, string | undefined>>;

const port = z.coerce.number({ error: 'must be a port number' }).int('must be a port number').min(0, 'must be a port number').max(65_535, 'must be a port number');
const seconds = z.string().regex(/^\d+$/, 'must be a whole number of seconds').transform(Number).refine((n) => n > 0, 'must be more than 0');
const url = z.url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' }).transform((u) => u.replace(/\/+$/, ''));

const shape = {
  PLATFORM_HOST: z.string().min(1).default('127.0.0.1'),
  PLATFORM_PORT: port.default(4000),
  PLATFORM_ISSUER: url.optional(),
  PLATFORM_AI_PORT: port.default(4001),
  PLATFORM_AI_BASE_URL: url.optional(),
  PLATFORM_SEED: z.string().min(1).optional(),
  PLATFORM_TOKEN_EXCHANGE: z.enum(['true', 'false'], { error: 'must be true or false' }).default('true'),
  PLATFORM_EXTRA_RESOURCES: z.string().default('http://127.0.0.1:3000/mcp'),
  PLATFORM_ACCESS_TOKEN_TTL_SECONDS: seconds.default(3600),
  PLATFORM_CLIENT_CREDENTIALS_TTL_SECONDS: seconds.default(600),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

export function loadDevPlatformSettings(env: Environment): DevPlatformSettings {
  const s = parseEnvironment(shape, env);
  const extraResources = s.PLATFORM_EXTRA_RESOURCES.split(',').map((r) => r.trim()).filter(Boolean);
  const bad = extraResources.filter((r) => !URL.canParse(r));
  if (bad.length > 0) throw new Error(`Invalid settings: PLATFORM_EXTRA_RESOURCES has a value that is not a URL (${bad.join(', ')}).`);
  return Object.freeze({
    host: s.PLATFORM_HOST,
    port: s.PLATFORM_PORT,
    issuer: s.PLATFORM_ISSUER ?? `http://127.0.0.1:${s.PLATFORM_PORT}`,
    aiPort: s.PLATFORM_AI_PORT,
    aiBaseUrl: s.PLATFORM_AI_BASE_URL ?? `http://127.0.0.1:${s.PLATFORM_AI_PORT}`,
    seedPath: resolve(s.PLATFORM_SEED ?? resolve(import.meta.dirname, '../seed.json')),
    tokenExchangeEnabled: s.PLATFORM_TOKEN_EXCHANGE === 'true',
    extraResources,
    accessTokenTtlSeconds: s.PLATFORM_ACCESS_TOKEN_TTL_SECONDS,
    clientCredentialsTtlSeconds: s.PLATFORM_CLIENT_CREDENTIALS_TTL_SECONDS,
    logLevel: s.LOG_LEVEL,
  });
}
