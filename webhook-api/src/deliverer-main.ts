// A deliverer alone (`npm run deliverer -w webhook-api`): the same database and key ring as the API,
// no API; /health and /metrics on its own port. Run several against one PostgreSQL to share the
// work; on SQLite it polls (WEBHOOK_POLL_INTERVAL), having no notifications from the API process.
import { createServer } from 'node:http';
import express from 'express';
import { createLogger, exitOnStartupFailure, stopOnSignals } from '@platform/tool-sdk';
import { closeServer, endWithParent, listenOn, localOrigin } from '@platform/tool-sdk/internal';
import { startDeliveryService } from './delivery/delivery-service.ts';
import { createDeliveryMetrics } from './delivery/metrics.ts';
import { metricsHandler } from './http/metrics.routes.ts';
import { loadDelivererProcessSettings } from './settings.ts';
import { startTelemetry } from '@platform/tool-sdk/observability';
import { openDatabase, openVault } from './database.ts';

const service = 'webhook-deliverer';
endWithParent(); // started by npm start's runner: gone with it
// The settings and the tracing, in one parse naming every bad variable.
const { settings, telemetry: telemetrySettings } = exitOnStartupFailure(service, () => loadDelivererProcessSettings(process.env, service));
const logger = createLogger({ name: service, level: settings.logLevel });
const telemetry = startTelemetry(telemetrySettings);
const database = await exitOnStartupFailure(service, () => openDatabase(settings, logger));
const vault = await exitOnStartupFailure(service, () => openVault(settings, database, logger));
const metrics = createDeliveryMetrics({ queue: database.deliveries });
// With the webhook feature off in this environment, the deliverer sends nothing: it is not started.
const delivery = settings.featureEnabled
  ? await exitOnStartupFailure(service, () => startDeliveryService({ queue: database.deliveries, vault, settings: settings.delivery, logger, metrics }))
  : undefined;
if (!delivery) logger.warn('the webhook feature is disabled (WEBHOOK_FEATURE_ENABLED=false): this deliverer sends nothing');

const app = express();
app.disable('x-powered-by');
app.get('/health', (_req, res) => {
  res.json(
    delivery
      ? { status: 'ok', delivering: true, owner: delivery.deliverer.owner, inFlight: delivery.deliverer.inFlight() }
      : { status: 'ok', delivering: false, reason: 'the webhook feature is disabled (WEBHOOK_FEATURE_ENABLED=false)' },
  );
});
if (settings.metricsAccess) app.get('/metrics', metricsHandler({ metrics, access: settings.metricsAccess }));
const server = createServer(app);
await exitOnStartupFailure(service, () => listenOn(server, { host: settings.host, port: settings.port, portVariable: 'WEBHOOK_DELIVERER_PORT' }));
logger.info(
  { store: settings.databaseUrl ? 'postgresql' : 'sqlite' },
  `${delivery ? 'delivering' : 'not delivering'}; health and metrics at ${localOrigin(settings.host, settings.port)}`,
);

stopOnSignals({ logger, deadlineMs: 10_000, steps: [() => delivery?.stop(), () => closeServer(server), () => database.close(), () => telemetry.shutdown()] });
