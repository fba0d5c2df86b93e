// Composition root of the webhook API: settings, store, key ring (which must hold every stored
// credential's key), caller check, ingest, metrics, the deliverer beside the API (unless
// WEBHOOK_RUN_DELIVERER=false), HTTP server.
import { createServer } from 'node:http';
import { createLogger, exitOnStartupFailure, stopOnSignals } from '@platform/tool-sdk';
import { closeServer, createHttpClient, createHttpsServer, endWithParent, listenOn, localOrigin, platformFetch } from '@platform/tool-sdk/internal';
import { createApp } from './http/app.ts';
import { createWebhookCallerCheck } from './http/caller-guard.ts';
import { answerClientErrors } from './http/client-errors.ts';
import { createDeliverySender, startDeliveryService } from './delivery/delivery-service.ts';
import { createDeliveryMetrics } from './delivery/metrics.ts';
import { createDeviceDirectory } from './http/device-directory.ts';
import { metricsHandler } from './http/metrics.routes.ts';
import { loadWebhookApiProcessSettings } from './settings.ts';
import { startTelemetry } from '@platform/tool-sdk/observability';
import { openDatabase, openVault } from './database.ts';

const service = 'webhook-api';
endWithParent(); // started by npm start's runner: gone with it
// The settings and the tracing, in one parse naming every bad variable.
const { settings, telemetry: telemetrySettings } = exitOnStartupFailure(service, () => loadWebhookApiProcessSettings(process.env, service));
const logger = createLogger({ name: service, level: settings.logLevel });
const telemetry = startTelemetry(telemetrySettings);
const database = await exitOnStartupFailure(service, () => openDatabase(settings, logger));
const vault = await exitOnStartupFailure(service, () => openVault(settings, database, logger));

// The caller check asks the platform through its back channel when one is set.
const backChannel = platformFetch({ backChannelUrl: settings.platformBackChannelUrl, identities: [settings.platformApiBaseUrl] });
const http = createHttpClient({ timeoutMs: settings.platformTimeoutMs, ...(backChannel && { fetch: backChannel }) });
const checkCaller = createWebhookCallerCheck({
  httpClient: http,
  platformApiBaseUrl: settings.platformApiBaseUrl,
  ttlSeconds: settings.meCacheTtlSeconds,
  permissionsMaxAgeMs: settings.permissionsMaxAgeMs,
});
const publicUrl = localOrigin(settings.host, settings.port);
const metrics = createDeliveryMetrics({ queue: database.deliveries });
if (!settings.featureEnabled)
  logger.warn('the webhook feature is disabled (WEBHOOK_FEATURE_ENABLED=false): /v2/webhooks refuses every call, ingest queues nothing, no delivery is made');
const delivery =
  settings.runDeliverer && settings.featureEnabled
    ? await exitOnStartupFailure(service, () => startDeliveryService({ queue: database.deliveries, vault, settings: settings.delivery, logger, metrics }))
    : undefined;
// Test deliveries go from the API process, as the deliverers would send them.
const testSender = createDeliverySender(vault, settings.delivery);
const app = createApp({
  store: database,
  queue: database.deliveries,
  vault,
  checkCaller,
  devices: createDeviceDirectory(http, settings.platformApiBaseUrl),
  logger,
  publicUrl,
  limits: settings.limits,
  ingest: {
    ...settings.ingest,
    onIngested: (points, queued, skipped, featureDisabled) => {
      metrics.ingested(points, queued, skipped, featureDisabled);
    },
  },
  ...(settings.metricsAccess && { metrics: metricsHandler({ metrics, access: settings.metricsAccess }) }),
  sender: testSender,
  featureEnabled: settings.featureEnabled,
});

const server = createServer(app);
answerClientErrors(server);
await exitOnStartupFailure(service, () => listenOn(server, { host: settings.host, port: settings.port, portVariable: 'WEBHOOK_API_PORT' }));
// The TLS listener: the same API for other services across a network (a container network).
const tls = settings.tls;
const tlsServer = tls && createHttpsServer(app, tls);
if (tls && tlsServer) {
  answerClientErrors(tlsServer);
  await exitOnStartupFailure(service, () => listenOn(tlsServer, { host: settings.host, port: tls.port, portVariable: 'WEBHOOK_API_TLS_PORT' }));
  logger.info(`listening: ${localOrigin(settings.host, tls.port).replace(/^http:/, 'https:')} (TLS)`);
}
logger.info(
  { store: settings.databaseUrl ? 'postgresql' : 'sqlite', keyId: vault.currentKeyId, deliverer: delivery ? 'in-process' : 'off' },
  `listening: ${publicUrl} (OpenAPI at /v2/openapi.json)`,
);

// The API stops taking requests while the deliverer finishes or gives back what it holds: a client
// keeping a connection open cannot hold up the deliverer until the deadline.
stopOnSignals({
  logger,
  deadlineMs: 10_000,
  steps: [
    async () => {
      await Promise.all([closeServer(server), tlsServer && closeServer(tlsServer), delivery?.stop()]);
      await testSender.close();
    },
    () => database.close(),
    () => telemetry.shutdown(),
  ],
});
