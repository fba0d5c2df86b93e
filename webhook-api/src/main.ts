// Composition root of the webhook API: settings, store, key ring, caller check, HTTP server.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { createHttpClient, createLogger } from '@platform/shared';
import { createApp } from './app.ts';
import { createCallerCheck } from './caller-check.ts';
import { CredentialVault } from './credential-vault.ts';
import { createDeviceDirectory } from './device-directory.ts';
import { loadEncryptionKeys } from './encryption-keys.ts';
import { loadWebhookApiSettings, type WebhookApiSettings } from './settings.ts';
import { openPostgresStore } from './store/postgres-store.ts';
import { openSqliteStore } from './store/sqlite-store.ts';

function startupFailure(error: unknown): never {
  process.stderr.write(`webhook-api cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

let settings: WebhookApiSettings;
try {
  settings = loadWebhookApiSettings(process.env);
} catch (error) {
  startupFailure(error);
}
const logger = createLogger({ name: 'webhook-api', level: settings.logLevel });
const store = settings.databaseUrl
  ? await openPostgresStore(settings.databaseUrl, {
      onIdleConnectionError: (error) => {
        logger.warn({ err: error }, 'an idle database connection failed; the pool replaces it');
      },
    }).catch(startupFailure)
  : openSqliteStore(join(settings.dataDir, 'webhooks.db'));
const vault = new CredentialVault(loadEncryptionKeys({ configured: settings.encryptionKey, dataDir: settings.dataDir, logger }));

const http = createHttpClient({ timeoutMs: settings.platformTimeoutMs });
const checkCaller = createCallerCheck({ httpClient: http, platformApiBaseUrl: settings.platformApiBaseUrl, ttlSeconds: settings.meCacheTtlSeconds });

const publicUrl = `http://${settings.host}:${settings.port}`;
const app = createApp({ store, vault, checkCaller, devices: createDeviceDirectory(http, settings.platformApiBaseUrl), logger, publicUrl });
const server = createServer(app);
server.listen(settings.port, settings.host);
await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => startupFailure(error))]);
logger.info({ store: settings.databaseUrl ? 'postgresql' : 'sqlite', keyId: vault.currentKeyId }, `listening: ${publicUrl} (OpenAPI at /v2/openapi.json)`);

function shutdown(): void {
  logger.info('shutting down');
  server.close(() => {
    void store.close().then(() => process.exit(0));
  });
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 5_000).unref();
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
