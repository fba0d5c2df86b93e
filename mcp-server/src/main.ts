// Composition root of the MCP gateway: settings, logger, the gateway, then HTTP (MCP and the
// protected-resource metadata) and gRPC (the tool registry) until a signal stops it.
import { createServer } from 'node:http';
import { createLogger, exitOnStartupFailure, stopOnSignals } from '@platform/tool-sdk';
import { closeServer, endWithParent, listenOn } from '@platform/tool-sdk/internal';
import { openPostgresStreamLedger } from './http/postgres-stream-ledger.ts';
import { createMcpGateway } from './mcp-gateway.ts';
import { openPostgresSpentStates } from './questions/index.ts';
import { createTokenSeal, openPostgresRegistrationStore } from './registry/index.ts';
import { createSealedBox } from './sealed-box.ts';
import { loadMcpServerProcessSettings } from './settings.ts';
import { openPostgresTaskStore } from './tasks/postgres-task-store.ts';
import { createMetricsHandler, startTelemetry, withMetrics } from '@platform/tool-sdk/observability';

const service = 'mcp-server';
endWithParent(); // started by npm start's runner: gone with it
// The settings, who may read /metrics and the tracing, in one parse naming every bad variable.
const { settings, metrics, telemetry: telemetrySettings } = exitOnStartupFailure(service, () => loadMcpServerProcessSettings(process.env, service));
const logger = createLogger({ name: service, level: settings.logLevel });
const metricsAccess = metrics.access;
const telemetry = startTelemetry(telemetrySettings);
// With DATABASE_URL, the registrations are shared by every replica of the gateway on that database.
const { databaseUrl } = settings;
const registrationStore =
  databaseUrl === undefined
    ? undefined
    : await exitOnStartupFailure(service, () =>
        openPostgresRegistrationStore(databaseUrl, { logger: logger.child({ part: 'registry' }), tokenSeal: createTokenSeal(settings.clientSecret) }),
      );
// And the request states answered at any replica, so that none is answered twice anywhere.
const spentStates =
  databaseUrl === undefined
    ? undefined
    : await exitOnStartupFailure(service, () => openPostgresSpentStates(databaseUrl, { logger: logger.child({ part: 'questions' }) }));
// And each person's open streams, so that their bound holds across the replicas.
const streamLedger =
  databaseUrl === undefined
    ? undefined
    : await exitOnStartupFailure(service, () => openPostgresStreamLedger(databaseUrl, { logger: logger.child({ part: 'streams' }) }));
// And the MCP tasks, so that a task started at one replica is polled, answered and cancelled at any.
const taskStore =
  databaseUrl === undefined
    ? undefined
    : await exitOnStartupFailure(service, () =>
        openPostgresTaskStore(databaseUrl, { logger: logger.child({ part: 'tasks' }), box: createSealedBox(settings.clientSecret, 'task content') }),
      );
const gateway = createMcpGateway({
  settings,
  logger,
  ...(registrationStore && { registrationStore }),
  ...(spentStates && { spentStates }),
  ...(streamLedger && { streamLedger }),
  ...(taskStore && { taskStore }),
});

const registry = await exitOnStartupFailure(service, () => gateway.registry.serve(settings.registryAddress));
// GET /metrics beside the MCP endpoint, only when MCP_METRICS_TOKEN (or MCP_METRICS_PUBLIC=true) says who may read it.
const server = createServer(withMetrics(gateway.app, metricsAccess && createMetricsHandler(gateway.metrics.registry, metricsAccess)));
await exitOnStartupFailure(service, () => listenOn(server, { host: settings.host, port: settings.port, portVariable: 'MCP_PORT' }));
logger.info(
  { registry: registry.address, registrations: registrationStore ? 'postgresql' : 'memory' },
  `listening: ${settings.publicUrl} (tool registry on gRPC ${registry.address})`,
);

stopOnSignals({
  logger,
  steps: [
    // Stop taking requests, then end the sessions and streams that would hold the server open.
    async () => {
      const closed = closeServer(server);
      await gateway.close();
      await closed;
    },
    () => registry.close(),
    () => telemetry.shutdown(),
  ],
});
