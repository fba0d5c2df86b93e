// Starts the webhook API on a loopback port, against a real dev platform, on SQLite or PostgreSQL.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Clock } from '@platform/tool-sdk';
import { createHttpClient } from '@platform/tool-sdk/internal';
import { captureLogs, listenOnFreePort, startedForTests } from '@platform/tool-sdk/testing';
import { expect, inject } from 'vitest';
import { createApp, type AppDependencies } from '../src/http/app.ts';
import { createWebhookCallerCheck, defaultPermissionsMaxAgeMs, type WebhookCallerCheckOptions } from '../src/http/caller-guard.ts';
import { answerClientErrors } from '../src/http/client-errors.ts';
import { CredentialVault } from '../src/configs/credential-vault.ts';
import { createDeviceDirectory } from '../src/http/device-directory.ts';
import { createDeliverySender, startDeliveryService, type DeliveryService } from '../src/delivery/delivery-service.ts';
import type { WebhookLimits } from '../src/configs/limits.ts';
import { personToken } from '@platform/dev-platform/testing';
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import type { DeliverySettings } from '../src/delivery/delivery-settings.ts';
import type { BatchRules } from '../src/queue/batch-fill.ts';
import type { HealthRules } from '../src/queue/endpoint-health.ts';
import type { LogReadAhead } from '../src/store/log-read-ahead.ts';
import { createDeliveryMetrics, type DeliveryMetrics } from '../src/delivery/metrics.ts';
import { openPostgresDatabase, openSqliteDatabase, type WebhookDatabase } from '../src/database.ts';
import { freshDatabaseWithSchema } from './schema-copies.ts';

export type Backend = 'SQLite' | 'PostgreSQL';

/** A real webhook endpoint on loopback, for other packages' tests too. */
export { startReceiver, type Receiver } from './receiver.ts';

export interface StoreLocation {
  readonly backend: Backend;
  /** Opens the store; ingest makes batches as testDeliverySettings say unless `batch` is given, and endpoints are disabled by `health` (the defaults otherwise). */
  readonly open: (options?: { readonly batch?: BatchRules; readonly health?: HealthRules; readonly logReadAhead?: LogReadAhead }) => Promise<WebhookDatabase>;
  /** The SQLite file, or the PostgreSQL database's URL: for another process to open the same store. */
  readonly sqlitePath?: string;
  readonly postgresUrl?: string;
}

/** A new store; on PostgreSQL, with `copySchema`, in a database with the schema applied (freshDatabaseWithSchema). */
export async function newStoreLocation(backend: Backend, postgresUrl: string, options: { readonly copySchema?: boolean } = {}): Promise<StoreLocation> {
  if (backend === 'SQLite') {
    const path = join(mkdtempSync(join(tmpdir(), 'webhook-api-')), 'webhooks.db');
    return { backend, open: ({ batch = testBatchRules, health } = {}) => openSqliteDatabase(path, { batch, ...(health && { health }) }), sqlitePath: path };
  }
  const url = await (options.copySchema ? freshDatabaseWithSchema(postgresUrl) : freshDatabase(postgresUrl));
  return {
    backend,
    open: ({ batch = testBatchRules, health, logReadAhead } = {}) =>
      openPostgresDatabase(url, { maxConnections: 4, batch, ...(health && { health }), ...(logReadAhead && { logReadAhead }) }),
    postgresUrl: url,
  };
}

/** The ingest token of every API the harness starts. */
export const testIngestToken = 'test-ingest-token-0123456789';

/** Delivery settings for tests: loopback receivers allowed, retries within milliseconds, a short lease. */
export const testDeliverySettings: DeliverySettings = Object.freeze({
  allowPrivateTargets: true,
  connectTimeoutMs: 2_000,
  requestTimeoutMs: 2_000,
  responsePrefixBytes: 256,
  retrySchedule: [50, 100, 200, 400],
  retryJitter: 0,
  maxAgeMs: 60_000,
  disableAfterMs: 86_400_000,
  disableMinAttempts: 5,
  batchMaxPoints: 100,
  batchLingerMs: 50,
  maxInFlight: 64,
  maxInFlightPerEndpoint: 8,
  maxInFlightPerCompany: 32,
  leaseMs: 2_000,
  pollMs: 100,
  retentionMs: 86_400_000,
});

/** The batches ingest makes in the tests' stores: testDeliverySettings' batch size and linger. */
export const testBatchRules: BatchRules = Object.freeze({ maxPoints: testDeliverySettings.batchMaxPoints, lingerMs: testDeliverySettings.batchLingerMs });

export interface RunningApi {
  readonly url: string;
  /** Where its store is: for a child process (a deliverer) on the same store. */
  readonly location: StoreLocation;
  readonly store: WebhookDatabase;
  readonly vault: CredentialVault;
  readonly logs: string[];
  /** The deliverer beside the API, when the options asked for one. */
  readonly delivery: DeliveryService | undefined;
  /** The metrics of ingest and of the deliverer, as src/main.ts wires them. */
  readonly metrics: DeliveryMetrics;
  /** POSTs points to /internal/telemetry with the ingest token: the status and body. */
  readonly ingest: (points: readonly unknown[]) => Promise<{ status: number; body: unknown }>;
  /** A client sending a person's own token (scripted login at the platform). */
  readonly clientAs: (username: string) => Promise<ApiClient>;
  close(): Promise<void>;
}

export const testKeyRing = [{ id: 'test-1', key: randomBytes(32) }];

export interface StartOptions {
  location: StoreLocation;
  platformUrl: string;
  vault?: CredentialVault;
  logLevel?: 'debug' | 'warn';
  limits?: WebhookLimits;
  /** Runs a deliverer beside the API with testDeliverySettings and these changes. */
  deliverer?: Partial<DeliverySettings>;
  /** How old callers' permissions may be when used: the API's default unless given; null keeps them the whole 60 s (a baseline). */
  permissionsMaxAgeMs?: number | null;
  /** The caller cache's clock, for tests that move time instead of waiting. */
  clock?: Clock;
  /** Default true; false as WEBHOOK_FEATURE_ENABLED=false: the API refuses /v2/webhooks and ingest queues nothing, and no deliverer runs. */
  featureEnabled?: boolean;
  /** PostgreSQL's read-ahead of endpoint logs, when not its default (a wider window, to catch a change inside it). */
  logReadAhead?: LogReadAhead;
}

export async function startWebhookApi(options: StartOptions): Promise<RunningApi> {
  const deliverySettings = { ...testDeliverySettings, ...options.deliverer };
  const store = await options.location.open({
    health: { disableAfterMs: deliverySettings.disableAfterMs, minFailedAttempts: deliverySettings.disableMinAttempts },
    ...(options.logReadAhead && { logReadAhead: options.logReadAhead }),
  });
  const metrics = createDeliveryMetrics({ queue: store.deliveries });
  const vault = options.vault ?? new CredentialVault(testKeyRing);
  const logs = captureLogs();
  const listening = await listenOnFreePort();
  const { server, url } = listening;
  const logger = createLogger({ name: 'webhook-api', level: options.logLevel ?? 'debug', destination: logs.destination });
  const delivery =
    options.deliverer && options.featureEnabled !== false
      ? await startDeliveryService({ queue: store.deliveries, vault, settings: deliverySettings, logger, metrics })
      : undefined;
  const testSender = createDeliverySender(vault, deliverySettings);
  const app = createApp({
    sender: testSender,
    store,
    queue: store.deliveries,
    vault,
    ...platformLookups(options.platformUrl, {
      // null: no max age, the permissions kept the whole ttl.
      ...(options.permissionsMaxAgeMs !== undefined && { permissionsMaxAgeMs: options.permissionsMaxAgeMs ?? undefined }),
      ...(options.clock && { clock: options.clock }),
    }),
    logger,
    publicUrl: url,
    ...(options.limits && { limits: options.limits }),
    ingest: {
      token: testIngestToken,
      maxPoints: 1000,
      maxBodyBytes: 1_048_576,
      onIngested: (points, queued, skipped, featureDisabled) => {
        metrics.ingested(points, queued, skipped, featureDisabled);
      },
    },
    ...(options.featureEnabled !== undefined && { featureEnabled: options.featureEnabled }),
  });
  server.on('request', app);
  answerClientErrors(server);
  return {
    url,
    location: options.location,
    store,
    vault,
    logs: logs.lines,
    delivery,
    metrics,
    ingest: (points) => postTelemetry(url, points),
    clientAs: async (username) => apiClient(url, `Bearer ${await personToken(options.platformUrl, username)}`),
    async close() {
      await listening.close();
      await delivery?.stop(0);
      await testSender.close();
      await store.close();
    },
  };
}

/** The caller check and the device directory of an API at the platform, as src/main.ts makes them (a 60 s cache); `caller` changes the check's options. */
export function platformLookups(platformUrl: string, caller: Partial<WebhookCallerCheckOptions> = {}): Pick<AppDependencies, 'checkCaller' | 'devices'> {
  // Generous: a loaded CI machine must not turn a slow platform answer into a 503.
  const http = createHttpClient({ timeoutMs: 10_000 });
  return {
    checkCaller: createWebhookCallerCheck({
      httpClient: http,
      platformApiBaseUrl: platformUrl,
      ttlSeconds: 60,
      permissionsMaxAgeMs: defaultPermissionsMaxAgeMs,
      ...caller,
    }),
    devices: createDeviceDirectory(http, platformUrl),
  };
}

/** POSTs `{ points }` to the API's ingest with the test token. */
export async function postTelemetry(baseUrl: string, points: readonly unknown[], token = testIngestToken): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${baseUrl}/internal/telemetry`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ points }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** A telemetry point as ingest takes it. */
export function telemetryPoint(deviceId: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    deviceId,
    gatewayId: 'gw-1',
    connectionTag: 'modbus',
    measurement: 'temperature',
    fields: { value: 21.5 },
    tags: { site: 'north' },
    utcTimestamp: '2026-11-22T12:00:00.000Z',
    ...overrides,
  };
}

/** The webhook API on `backend`, against the platform at `platformUrl()`, for the enclosing block's tests. */
export function startedApiForTests(
  backend: Backend,
  platformUrl: () => string,
  options: Omit<StartOptions, 'location' | 'platformUrl'> = {},
): () => RunningApi {
  return startedForTests(async () =>
    startWebhookApi({ ...options, location: await newStoreLocation(backend, inject('postgresUrl')), platformUrl: platformUrl() }),
  );
}

export type ApiClient = ReturnType<typeof apiClient>;

/** How createHook makes a configuration: fields beyond its name and address, the devices it takes and their route. */
export interface HookOptions {
  /** Realtime unless these say otherwise. */
  readonly fields?: Record<string, unknown>;
  /** Devices of company 1 added to it, each routed by `route` (a Device route, enabled, unless told). */
  readonly devices?: readonly number[];
  readonly route?: Record<string, unknown>;
}

/** A configuration of company 1 named `path`, delivering to `<receiverUrl>/<path>`, made by `as`: its id. */
export async function createHook(as: ApiClient, receiverUrl: string, path: string, options: HookOptions = {}): Promise<string> {
  const created = await as('POST', '/v2/webhooks?companyId=1', { name: path, url: `${receiverUrl}/${path}`, deliveryMode: 'Realtime', ...options.fields });
  expect(created.status).toBe(201);
  const { id } = created.body as { id: string };
  for (const device of options.devices ?? []) {
    expect((await as('POST', `/v2/webhooks/${id}/devices/${device}`)).status).toBe(201);
    expect((await as('POST', `/v2/webhooks/${id}/devices/${device}/routes`, options.route ?? { scopeLevel: 'Device', enabled: true })).status).toBe(201);
  }
  return id;
}

/** A client of the API for one credential: JSON in, status and JSON out. */
export function apiClient(baseUrl: string, authorization: string, extraHeaders: Record<string, string> = {}) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authversion: 'V0.0.1',
        authorization,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...extraHeaders,
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  };
}

/**
 * apiClient's requests with the path sent as written. fetch resolves dot segments before sending,
 * `%2E%2E` among them (WHATWG URL: it is a `..`), so a path parameter `..` would reach the API as
 * another path: .../devices/%2E%2E/routes/%2E%2E is sent as a DELETE of the configuration itself.
 */
export function rawPathClient(baseUrl: string, authorization: string) {
  const { hostname, port } = new URL(baseUrl);
  return (method: string, path: string, body?: unknown) =>
    new Promise<{ status: number; body: unknown }>((resolvePromise, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers = { authversion: 'V0.0.1', authorization, ...(payload !== undefined && { 'content-type': 'application/json' }) };
      request({ host: hostname, port, method, path, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          resolvePromise({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as unknown) : undefined });
        });
      })
        .on('error', reject)
        .end(payload);
    });
}
