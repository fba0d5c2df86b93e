// The webhook API's settings, read once from the environment in the SDK's vocabulary; every bad
// variable named at once, no value ever echoed (DATABASE_URL and WEBHOOK_ENCRYPTION_KEY hold secrets).
import { resolve } from 'node:path';
import { setting, type Environment, type LogLevel } from '@platform/tool-sdk';
import {
  httpTlsProblems,
  httpTlsShape,
  parseSettings,
  telemetrySettingsPart,
  toHttpTlsSettings,
  type HttpTlsSettings,
  type SettingsPart,
} from '@platform/tool-sdk/internal';
import { metricsAccessOf, metricsAccessProblems, metricsAccessShape, type MetricsAccess, type TelemetrySettings } from '@platform/tool-sdk/observability';
import { z } from 'zod';
import { parseKeyRing, type EncryptionKey } from './configs/credential-vault.ts';
import type { DeliverySettings } from './delivery/delivery-settings.ts';
import { defaultJitter, defaultRetrySchedule, parseDuration, parseDurationList } from './delivery/retry-schedule.ts';
import { defaultLimits, type WebhookLimits } from './configs/limits.ts';
import { defaultBatchRules } from './queue/batch-fill.ts';
import { defaultHealthRules } from './queue/endpoint-health.ts';
import { defaultPermissionsMaxAgeMs } from './http/caller-guard.ts';

export interface WebhookApiSettings {
  readonly host: string;
  readonly port: number;
  /** The platform API's base: where the caller check asks, and the audience this API accepts. */
  readonly platformApiBaseUrl: string;
  /** Where the caller check's requests for the platform API go instead, when its base is not reachable from here (PLATFORM_BACKCHANNEL_URL). */
  readonly platformBackChannelUrl?: string | undefined;
  /** The API's TLS listener beside the plain one (WEBHOOK_API_TLS_PORT, HTTP_TLS_*): how other services reach it across a network. */
  readonly tls?: HttpTlsSettings | undefined;
  /** How long a token's identity stays cached (ME_CACHE_TTL_SECONDS). */
  readonly meCacheTtlSeconds: number;
  /** How old the cached permissions a request is judged by may be: the bound on revocation. */
  readonly permissionsMaxAgeMs: number;
  readonly platformTimeoutMs: number;
  /** PostgreSQL when set; otherwise the SQLite file under dataDir. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** The configured key ring, current key first; a generated key file under dataDir when unset. */
  readonly encryptionKeys: readonly EncryptionKey[] | undefined;
  readonly limits: WebhookLimits;
  readonly ingest: IngestSettings;
  readonly delivery: DeliverySettings;
  /** Whether this process runs a deliverer beside the API (the default), or leaves delivery to `npm run deliverer`. */
  readonly runDeliverer: boolean;
  /**
   * Whether the webhook feature is on in this environment (WEBHOOK_FEATURE_ENABLED, default true).
   * Off: every /v2/webhooks call is refused as FEATURE_DISABLED, ingest queues nothing, and no
   * deliverer sends anything (SPEC: the feature may be disabled on some environments).
   */
  readonly featureEnabled: boolean;
  /**
   * Who may GET /metrics: a bearer token's holders (WEBHOOK_METRICS_TOKEN), or anyone
   * (WEBHOOK_METRICS_PUBLIC=true). The settings refuse neither, so it is set; undefined would not serve /metrics.
   */
  readonly metricsAccess: MetricsAccess | undefined;
  readonly logLevel: LogLevel;
}

export interface IngestSettings {
  /** The bearer token POST /internal/telemetry asks for; required. */
  readonly token: string;
  readonly maxPoints: number;
  readonly maxBodyBytes: number;
}

/** A duration setting such as 500ms, 30s, 5m, 2h or 7d, in milliseconds, of at least `min`. */
const duration = (min: number) =>
  z.string().transform((value, context) => {
    try {
      const ms = parseDuration(value);
      if (ms >= min) return ms;
    } catch {
      // said below, without the value
    }
    context.addIssue({ code: 'custom', message: `must be a duration of at least ${min} ms, such as 500ms, 30s, 5m, 2h or 7d` });
    return z.NEVER;
  });

const durationList = z.string().transform((value, context) => {
  try {
    const steps = parseDurationList(value);
    if (steps.length <= 30 && steps.every((ms) => ms >= 1)) return steps;
  } catch {
    // said below
  }
  context.addIssue({ code: 'custom', message: 'must be 1 to 30 durations separated by commas, such as 5s,5m,30m,2h' });
  return z.NEVER;
});

const fraction = z
  .string()
  .regex(/^0(\.\d+)?$/, 'must be a number from 0 up to (not including) 1')
  .transform(Number);

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
  WEBHOOK_API_PORT: setting.httpPort.default(4100),
  PLATFORM_API_BASE_URL: setting.baseUrl.default('http://127.0.0.1:4000'),
  ME_CACHE_TTL_SECONDS: setting.wholeNumber(0, 'seconds').default(60),
  PLATFORM_HTTP_TIMEOUT_MS: setting.wholeNumber(1, 'milliseconds').default(10_000),
  DATABASE_URL: setting.postgresUrl.optional(),
  WEBHOOK_DATA_DIR: setting.text.default('data'),
  WEBHOOK_ENCRYPTION_KEY: keyRing.optional(),
  WEBHOOK_MAX_CONFIGS_PER_COMPANY: setting.wholeNumber(1, 'configurations').default(defaultLimits.configsPerCompany),
  WEBHOOK_MAX_DEVICES_PER_CONFIG: setting.wholeNumber(1, 'devices').default(defaultLimits.devicesPerConfig),
  WEBHOOK_MAX_SCOPES_PER_LINK: setting.wholeNumber(1, 'scopes').default(defaultLimits.scopesPerLink),
  WEBHOOK_INGEST_MAX_POINTS: setting.wholeNumber(1, 'points').default(1000),
  WEBHOOK_INGEST_MAX_BYTES: setting.wholeNumber(1024, 'bytes').default(1_048_576),
  WEBHOOK_RUN_DELIVERER: setting.flag.default(true),
  WEBHOOK_FEATURE_ENABLED: setting.flag.default(true),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: setting.flag.default(false),
  WEBHOOK_CONNECT_TIMEOUT: duration(1).default(10_000),
  WEBHOOK_REQUEST_TIMEOUT: duration(1).default(30_000),
  WEBHOOK_RESPONSE_PREFIX_BYTES: setting.wholeNumber(0, 'bytes').default(1024),
  WEBHOOK_RETRY_SCHEDULE: durationList.default([...defaultRetrySchedule]),
  WEBHOOK_RETRY_JITTER: fraction.default(defaultJitter),
  WEBHOOK_MAX_DELIVERY_AGE: duration(1).default(30 * 3_600_000),
  WEBHOOK_DISABLE_AFTER: duration(1).default(defaultHealthRules.disableAfterMs),
  WEBHOOK_DISABLE_MIN_ATTEMPTS: setting.wholeNumber(1, 'attempts').default(defaultHealthRules.minFailedAttempts),
  WEBHOOK_BATCH_MAX_POINTS: setting.wholeNumber(1, 'points').default(defaultBatchRules.maxPoints),
  WEBHOOK_BATCH_LINGER: duration(0).default(defaultBatchRules.lingerMs),
  WEBHOOK_MAX_IN_FLIGHT: setting.wholeNumber(1, 'requests').default(256),
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: setting.wholeNumber(1, 'requests').default(16),
  WEBHOOK_MAX_IN_FLIGHT_PER_COMPANY: setting.wholeNumber(1, 'requests').default(64),
  WEBHOOK_LEASE: duration(100).default(10_000),
  WEBHOOK_POLL_INTERVAL: duration(10).default(1_000),
  WEBHOOK_DELIVERY_RETENTION: duration(1).default(7 * 86_400_000),
  ...metricsAccessShape('WEBHOOK_'),
  NODE_ENV: z.string().optional(),
  LOG_LEVEL: setting.logLevel.default('info'),
};

const ingestToken = z.string({ error: 'is required (the bearer token of POST /internal/telemetry)' }).min(16, 'must be at least 16 characters');

/** The API's variables: the common ones, the ingest token and how fresh the callers' permissions are. */
const apiShape = {
  ...shape,
  WEBHOOK_INGEST_TOKEN: ingestToken,
  WEBHOOK_PERMISSIONS_MAX_AGE: duration(100).default(defaultPermissionsMaxAgeMs),
  PLATFORM_BACKCHANNEL_URL: setting.origin.optional(),
  WEBHOOK_API_TLS_PORT: setting.httpPort.optional(),
  ...httpTlsShape,
};

/** A deliverer alone's: the common ones and where its health and metrics listen. */
const delivererShape = { ...shape, WEBHOOK_DELIVERER_HOST: setting.host.default('127.0.0.1'), WEBHOOK_DELIVERER_PORT: setting.httpPort.default(4101) };

/** Every variable the API's settings read: .env.example lists each. */
export const webhookApiVariables: readonly string[] = Object.freeze(Object.keys(apiShape));

/** Every variable a deliverer alone reads: .env.example lists each. */
export const delivererVariables: readonly string[] = Object.freeze(Object.keys(delivererShape));

/** A deliverer alone (`npm run deliverer`): the same database, keys and delivery settings, its own health and metrics port, no ingest. */
export type DelivererSettings = Omit<
  WebhookApiSettings,
  | 'ingest'
  | 'limits'
  | 'runDeliverer'
  | 'meCacheTtlSeconds'
  | 'permissionsMaxAgeMs'
  | 'platformTimeoutMs'
  | 'platformApiBaseUrl'
  | 'platformBackChannelUrl'
  | 'tls'
>;

/**
 * /metrics counts every tenant's deliveries: the SDK's access rule, with /metrics required (served
 * without a token only when the operator says so; one line names both ways when neither is chosen).
 */
const metricsAccessChosen = (values: Record<string, unknown>) => metricsAccessProblems('WEBHOOK_', values, {});

/** The API's own settings, as a part of its process's one settings parse. */
const webhookApiSettingsPart: SettingsPart<typeof apiShape, WebhookApiSettings> = {
  shape: apiShape,
  *check(values) {
    yield* metricsAccessChosen(values);
    yield* httpTlsProblems(values, { variable: 'WEBHOOK_API_TLS_PORT', value: values.WEBHOOK_API_TLS_PORT });
    if (values.WEBHOOK_API_TLS_PORT !== undefined && values.WEBHOOK_API_TLS_PORT !== 0 && values.WEBHOOK_API_TLS_PORT === values.WEBHOOK_API_PORT) {
      yield ['WEBHOOK_API_TLS_PORT', 'must differ from WEBHOOK_API_PORT'];
    }
  },
  build: (s) =>
    Object.freeze({
      ...common(s),
      ...(s.PLATFORM_BACKCHANNEL_URL !== undefined && { platformBackChannelUrl: s.PLATFORM_BACKCHANNEL_URL }),
      tls: toHttpTlsSettings(s, s.WEBHOOK_API_TLS_PORT),
      host: s.WEBHOOK_API_HOST,
      port: s.WEBHOOK_API_PORT,
      permissionsMaxAgeMs: s.WEBHOOK_PERMISSIONS_MAX_AGE,
      ingest: Object.freeze({ token: s.WEBHOOK_INGEST_TOKEN, maxPoints: s.WEBHOOK_INGEST_MAX_POINTS, maxBodyBytes: s.WEBHOOK_INGEST_MAX_BYTES }),
      runDeliverer: s.WEBHOOK_RUN_DELIVERER,
    }),
};

/** A deliverer alone's settings, as a part of its process's one settings parse. */
const delivererSettingsPart: SettingsPart<typeof delivererShape, DelivererSettings> = {
  shape: delivererShape,
  check: metricsAccessChosen,
  build: (s) => Object.freeze({ ...common(s), host: s.WEBHOOK_DELIVERER_HOST, port: s.WEBHOOK_DELIVERER_PORT }),
};

export function loadWebhookApiSettings(env: Environment): WebhookApiSettings {
  return parseSettings(env, { settings: webhookApiSettingsPart }).settings;
}

export function loadDelivererSettings(env: Environment): DelivererSettings {
  return parseSettings(env, { settings: delivererSettingsPart }).settings;
}

/** Everything a process of the webhook API (the API, or a deliverer alone) reads from its environment: its settings and its tracing. */
export interface WebhookProcessSettings<Settings> {
  readonly settings: Settings;
  readonly telemetry: TelemetrySettings;
}

/** Reads all of the API process's settings in one parse: one SETTINGS_INVALID message names every bad variable of every group. */
export function loadWebhookApiProcessSettings(env: Environment, service = 'webhook-api'): WebhookProcessSettings<WebhookApiSettings> {
  return parseSettings(env, { settings: webhookApiSettingsPart, telemetry: telemetrySettingsPart(service) });
}

/** Reads all of a deliverer alone's settings in one parse, as loadWebhookApiProcessSettings does the API's. */
export function loadDelivererProcessSettings(env: Environment, service = 'webhook-deliverer'): WebhookProcessSettings<DelivererSettings> {
  return parseSettings(env, { settings: delivererSettingsPart, telemetry: telemetrySettingsPart(service) });
}

/** What the API and a deliverer alone read alike. */
function common(s: z.output<z.ZodObject<typeof shape>>) {
  if (s.NODE_ENV === 'production' && s.WEBHOOK_ALLOW_PRIVATE_TARGETS) {
    throw new TypeError('WEBHOOK_ALLOW_PRIVATE_TARGETS must not be true when NODE_ENV=production: deliveries could reach the private network');
  }
  return {
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
    delivery: Object.freeze({
      allowPrivateTargets: s.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      connectTimeoutMs: s.WEBHOOK_CONNECT_TIMEOUT,
      requestTimeoutMs: s.WEBHOOK_REQUEST_TIMEOUT,
      responsePrefixBytes: s.WEBHOOK_RESPONSE_PREFIX_BYTES,
      retrySchedule: Object.freeze([...s.WEBHOOK_RETRY_SCHEDULE]),
      retryJitter: s.WEBHOOK_RETRY_JITTER,
      maxAgeMs: s.WEBHOOK_MAX_DELIVERY_AGE,
      disableAfterMs: s.WEBHOOK_DISABLE_AFTER,
      disableMinAttempts: s.WEBHOOK_DISABLE_MIN_ATTEMPTS,
      batchMaxPoints: s.WEBHOOK_BATCH_MAX_POINTS,
      batchLingerMs: s.WEBHOOK_BATCH_LINGER,
      maxInFlight: s.WEBHOOK_MAX_IN_FLIGHT,
      maxInFlightPerEndpoint: s.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
      maxInFlightPerCompany: s.WEBHOOK_MAX_IN_FLIGHT_PER_COMPANY,
      leaseMs: s.WEBHOOK_LEASE,
      pollMs: s.WEBHOOK_POLL_INTERVAL,
      retentionMs: s.WEBHOOK_DELIVERY_RETENTION,
    }),
    featureEnabled: s.WEBHOOK_FEATURE_ENABLED,
    metricsAccess: metricsAccessOf('WEBHOOK_', s),
    logLevel: s.LOG_LEVEL,
  };
}
