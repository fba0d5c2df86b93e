// The dev platform's settings, read once from the environment in the SDK's vocabulary; every bad
// variable, and every problem across variables, named at once.
import { resolve } from 'node:path';
import { setting, type Environment, type LogLevel } from '@platform/tool-sdk';
import {
  httpTlsProblems,
  httpTlsShape,
  localOrigin,
  metricsSettingsPart,
  parseSettings,
  toHttpTlsSettings,
  type HttpTlsSettings,
  type SettingsPart,
} from '@platform/tool-sdk/internal';
import type { MetricsSettings } from '@platform/tool-sdk/observability';
import { z } from 'zod';

export interface DevPlatformSettings {
  readonly host: string;
  readonly port: number;
  /** The issuer and the platform API's base address (one origin, as on the real platform). */
  readonly issuer: string;
  /**
   * The issuer and platform API on a TLS listener too (PLATFORM_TLS_PORT, HTTP_TLS_*): the back
   * channel services reach across a network; the issuer they are told stays `issuer`.
   */
  readonly tls?: HttpTlsSettings | undefined;
  /** The "other platform service" (AI embeddings stand-in), which refuses delegated tokens. */
  readonly aiPort: number;
  readonly aiBaseUrl: string;
  readonly seedPath: string;
  /** Where clients registered by dynamic client registration are kept across restarts; none keeps them in memory. */
  readonly clientsFile: string | undefined;
  /** Where apps registered while the platform runs (PUT /dev/apps) are kept across restarts, client secrets included; none keeps them in memory. */
  readonly appsFile: string | undefined;
  /** Registered clients kept at most; a full store takes a new one in place of the one unused for longest. */
  readonly maxClients: number;
  /** How long a registered client that signed someone in or got a token is in use: never dropped to make room. */
  readonly clientEvictUnusedSeconds: number;
  /** Dynamic client registrations one source network (all of loopback, an IPv4 /24, an IPv6 /64) may make per minute. */
  readonly registrationsPerMinute: number;
  /**
   * Whether a client_id may be a loopback URL (http or https on 127.0.0.1, [::1], localhost) of a
   * client ID metadata document: the dev platform runs on loopback http itself; never with NODE_ENV=production.
   */
  readonly allowLoopbackClientIds: boolean;
  readonly tokenExchangeEnabled: boolean;
  /** Resources a person's token may be issued for besides the platform API (the MCP server). */
  readonly extraResources: readonly string[];
  /** Lifetime of a person's access token. */
  readonly accessTokenTtlSeconds: number;
  /** Lifetime of an app's client-credentials token. */
  readonly clientCredentialsTtlSeconds: number;
  readonly logLevel: LogLevel;
}

const shape = {
  PLATFORM_HOST: setting.host.default('127.0.0.1'),
  PLATFORM_PORT: setting.httpPort.default(4000),
  PLATFORM_ISSUER: setting.baseUrl.optional(),
  PLATFORM_TLS_PORT: setting.httpPort.optional(),
  ...httpTlsShape,
  PLATFORM_AI_PORT: setting.httpPort.default(4001),
  PLATFORM_AI_BASE_URL: setting.baseUrl.optional(),
  PLATFORM_SEED: setting.text.optional(),
  PLATFORM_CLIENTS_FILE: setting.text.optional(),
  PLATFORM_APPS_FILE: setting.text.optional(),
  PLATFORM_MAX_CLIENTS: setting.wholeNumber(1, 'clients', 1_000_000).default(1000),
  PLATFORM_CLIENT_EVICT_UNUSED_SECONDS: setting.wholeNumber(60, 'seconds').default(7 * 24 * 3600),
  PLATFORM_REGISTRATIONS_PER_MINUTE: setting.wholeNumber(1, 'registrations', 100_000).default(20),
  PLATFORM_TOKEN_EXCHANGE: setting.flag.default(true),
  PLATFORM_EXTRA_RESOURCES: setting.baseUrlList.default(['http://127.0.0.1:3000/mcp']),
  PLATFORM_ACCESS_TOKEN_TTL_SECONDS: setting.wholeNumber(1, 'seconds').default(3600),
  PLATFORM_CLIENT_CREDENTIALS_TTL_SECONDS: setting.wholeNumber(1, 'seconds').default(600),
  LOG_LEVEL: setting.logLevel.default('info'),
  NODE_ENV: z.string().optional(),
};

/** Every variable the dev platform's settings read: .env.example lists each. */
export const devPlatformVariables: readonly string[] = Object.freeze(Object.keys(shape));

const issuerOf = (values: { PLATFORM_ISSUER?: string | undefined; PLATFORM_HOST?: string | undefined; PLATFORM_PORT?: number | undefined }) =>
  values.PLATFORM_ISSUER ?? localOrigin(values.PLATFORM_HOST ?? '127.0.0.1', values.PLATFORM_PORT ?? 4000);

/** The dev platform's own settings, as a part of its process's one settings parse. */
const devPlatformSettingsPart: SettingsPart<typeof shape, DevPlatformSettings> = {
  shape,
  *check(values) {
    if (values.PLATFORM_PORT !== undefined && values.PLATFORM_PORT !== 0 && values.PLATFORM_PORT === values.PLATFORM_AI_PORT) {
      yield ['PLATFORM_AI_PORT', 'must differ from PLATFORM_PORT'];
    }
    yield* httpTlsProblems(values, { variable: 'PLATFORM_TLS_PORT', value: values.PLATFORM_TLS_PORT });
    const tlsPort = values.PLATFORM_TLS_PORT;
    if (tlsPort !== undefined && tlsPort !== 0 && (tlsPort === values.PLATFORM_PORT || tlsPort === values.PLATFORM_AI_PORT)) {
      yield ['PLATFORM_TLS_PORT', 'must differ from PLATFORM_PORT and PLATFORM_AI_PORT'];
    }
    // An extra resource that is the platform API itself would let a token for "another" resource be the API's own.
    if (values.PLATFORM_EXTRA_RESOURCES?.includes(issuerOf(values))) yield ['PLATFORM_EXTRA_RESOURCES', 'must not name the platform API itself (the issuer)'];
  },
  build(s) {
    return Object.freeze({
      host: s.PLATFORM_HOST,
      port: s.PLATFORM_PORT,
      issuer: issuerOf(s),
      tls: toHttpTlsSettings(s, s.PLATFORM_TLS_PORT),
      aiPort: s.PLATFORM_AI_PORT,
      aiBaseUrl: s.PLATFORM_AI_BASE_URL ?? localOrigin(s.PLATFORM_HOST, s.PLATFORM_AI_PORT),
      seedPath: resolve(s.PLATFORM_SEED ?? resolve(import.meta.dirname, '../seed.json')),
      clientsFile: s.PLATFORM_CLIENTS_FILE === undefined ? undefined : resolve(s.PLATFORM_CLIENTS_FILE),
      appsFile: s.PLATFORM_APPS_FILE === undefined ? undefined : resolve(s.PLATFORM_APPS_FILE),
      maxClients: s.PLATFORM_MAX_CLIENTS,
      clientEvictUnusedSeconds: s.PLATFORM_CLIENT_EVICT_UNUSED_SECONDS,
      registrationsPerMinute: s.PLATFORM_REGISTRATIONS_PER_MINUTE,
      allowLoopbackClientIds: s.NODE_ENV !== 'production',
      tokenExchangeEnabled: s.PLATFORM_TOKEN_EXCHANGE,
      extraResources: Object.freeze([...s.PLATFORM_EXTRA_RESOURCES]),
      accessTokenTtlSeconds: s.PLATFORM_ACCESS_TOKEN_TTL_SECONDS,
      clientCredentialsTtlSeconds: s.PLATFORM_CLIENT_CREDENTIALS_TTL_SECONDS,
      logLevel: s.LOG_LEVEL,
    });
  },
};

export function loadDevPlatformSettings(env: Environment): DevPlatformSettings {
  return parseSettings(env, { settings: devPlatformSettingsPart }).settings;
}

/** Everything the dev platform's process reads from its environment: its settings and who may read /metrics. */
export interface DevPlatformProcessSettings {
  readonly settings: DevPlatformSettings;
  readonly metrics: MetricsSettings;
}

/** Reads all of the dev platform's process settings in one parse: one SETTINGS_INVALID message names every bad variable of every group. */
export function loadDevPlatformProcessSettings(env: Environment): DevPlatformProcessSettings {
  return parseSettings(env, { settings: devPlatformSettingsPart, metrics: metricsSettingsPart('PLATFORM_') });
}
