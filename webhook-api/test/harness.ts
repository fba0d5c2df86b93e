// Starts the webhook API on a loopback port, against a real dev platform, on SQLite or PostgreSQL.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpClient, createLogger } from '@platform/shared';
import { captureLogs } from '@platform/shared/testing';
import { createApp } from '../src/app.ts';
import { createWebhookCallerCheck } from '../src/caller-context.ts';
import { answerClientErrors } from '../src/client-errors.ts';
import { CredentialVault } from '../src/credential-vault.ts';
import { createDeviceDirectory } from '../src/device-directory.ts';
import type { WebhookLimits } from '../src/limits.ts';
import { openPostgresStore } from '../src/store/postgres-store.ts';
import { openSqliteStore } from '../src/store/sqlite-store.ts';
import type { WebhookStore } from '../src/store/webhook-store.ts';
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
  close(): Promise<void>;
}

export const testKeyRing = [{ id: 'test-1', key: randomBytes(32) }];

export async function startWebhookApi(options: {
  location: StoreLocation;
  platformUrl: string;
  vault?: CredentialVault;
  logLevel?: 'debug' | 'warn';
  limits?: WebhookLimits;
}): Promise<RunningApi> {
  const store = await options.location.open();
  const vault = options.vault ?? new CredentialVault(testKeyRing);
  const logs = captureLogs();
  const http = createHttpClient({ timeoutMs: 2_000 });
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const url = `http://127.0.0.1:${address.port}`;
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
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
      await store.close();
    },
  };
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
