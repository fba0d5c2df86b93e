// Starts the webhook API on a loopback port, against a real dev platform, on SQLite or PostgreSQL.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpClient, createLogger } from '@platform/shared';
import { captureLogs, listenOnFreePort, startedForTests } from '@platform/shared/testing';
import { inject } from 'vitest';
import { createApp } from '../src/app.ts';
import { createWebhookCallerCheck } from '../src/caller-context.ts';
import { answerClientErrors } from '../src/client-errors.ts';
import { CredentialVault } from '../src/credential-vault.ts';
import { createDeviceDirectory } from '../src/device-directory.ts';
import type { WebhookLimits } from '../src/limits.ts';
import { openPostgresStore } from '../src/store/postgres-store.ts';
import { openSqliteStore } from '../src/store/sqlite-store.ts';
import type { WebhookStore } from '../src/store/webhook-store.ts';
import { personToken } from '@platform/dev-platform/testing';
import { freshDatabase } from './postgres-cluster.ts';

export type Backend = 'SQLite' | 'PostgreSQL';

export interface StoreLocation {
  readonly backend: Backend;
  readonly open: () => Promise<WebhookStore>;
}

export async function newStoreLocation(backend: Backend, postgresUrl: string): Promise<StoreLocation> {
  if (backend === 'SQLite') {
    const path = join(mkdtempSync(join(tmpdir(), 'webhook-api-')), 'webhooks.db');
    return { backend, open: () => openSqliteStore(path) };
  }
  const url = await freshDatabase(postgresUrl);
  return { backend, open: () => openPostgresStore(url, { maxConnections: 4 }) };
}

export interface RunningApi {
  readonly url: string;
  readonly store: WebhookStore;
  readonly vault: CredentialVault;
  readonly logs: string[];
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
}

export async function startWebhookApi(options: StartOptions): Promise<RunningApi> {
  const store = await options.location.open();
  const vault = options.vault ?? new CredentialVault(testKeyRing);
  const logs = captureLogs();
  // Generous: a loaded CI machine must not turn a slow platform answer into a 503.
  const http = createHttpClient({ timeoutMs: 10_000 });
  const listening = await listenOnFreePort();
  const { server, url } = listening;
  const app = createApp({
    store,
    vault,
    checkCaller: createWebhookCallerCheck({ httpClient: http, platformApiBaseUrl: options.platformUrl, ttlSeconds: 60 }),
    devices: createDeviceDirectory(http, options.platformUrl),
    logger: createLogger({ name: 'webhook-api', level: options.logLevel ?? 'debug', destination: logs.destination }),
    publicUrl: url,
    ...(options.limits && { limits: options.limits }),
  });
  server.on('request', app);
  answerClientErrors(server);
  return {
    url,
    store,
    vault,
    logs: logs.lines,
    clientAs: async (username) => apiClient(url, `Bearer ${await personToken(options.platformUrl, username)}`),
    async close() {
      await listening.close();
      await store.close();
    },
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
