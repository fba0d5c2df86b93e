// Composition root of the dev platform: settings, seed, the two HTTP servers, clean shutdown.
import { createServer } from 'node:http';
import { createLogger, exitOnStartupFailure, stopOnSignals } from '@platform/tool-sdk';
import { closeServer, createHttpsServer, endWithParent, failStartup, listenOn } from '@platform/tool-sdk/internal';
import { createDevPlatform } from './dev-platform.ts';
import { AppsFileError } from './world/dev-apps.ts';
import { ClientsFileError } from './oidc/provider-store.ts';
import { loadSeedFile } from './world/seed.ts';
import { loadDevPlatformProcessSettings } from './settings.ts';
import { createMetricsHandler, withMetrics } from '@platform/tool-sdk/observability';
import { createPlatformMetrics } from './platform-metrics.ts';

const service = 'dev-platform';
endWithParent(); // started by npm start's runner: gone with it
// A bad setting or seed is the operator's to fix: one line saying what is wrong.
// The settings and who may read /metrics, in one parse naming every bad variable.
const { settings, metrics: metricsSettings } = exitOnStartupFailure(service, () => loadDevPlatformProcessSettings(process.env));
const seed = exitOnStartupFailure(service, () => loadSeedFile(settings.seedPath, process.env));
const logger = createLogger({ name: service, level: settings.logLevel });
const metricsAccess = metricsSettings.access;
const metrics = createPlatformMetrics();
const platform = await createDevPlatform({ settings, seed, logger }).catch((error: unknown) => {
  if (error instanceof ClientsFileError) failStartup(service, new Error(`PLATFORM_CLIENTS_FILE: ${error.message}`));
  if (error instanceof AppsFileError) failStartup(service, new Error(`PLATFORM_APPS_FILE: ${error.message}`));
  throw error;
});

const servers = [
  // GET /metrics beside the issuer and API, only when PLATFORM_METRICS_TOKEN (or PLATFORM_METRICS_PUBLIC=true) says who may read it.
  {
    server: createServer(withMetrics(metrics.counting(platform.app), metricsAccess && createMetricsHandler(metrics.registry, metricsAccess))),
    port: settings.port,
    portVariable: 'PLATFORM_PORT',
    what: `issuer and platform API ${settings.issuer}`,
  },
  { server: createServer(platform.aiApp), port: settings.aiPort, portVariable: 'PLATFORM_AI_PORT', what: `AI service ${settings.aiBaseUrl}` },
  // The back channel: the same issuer and API over TLS for services across a network. Its
  // discovery document still names the issuer above; only the endpoints follow the address asked.
  ...(settings.tls
    ? [
        {
          server: createHttpsServer(platform.app, settings.tls),
          port: settings.tls.port,
          portVariable: 'PLATFORM_TLS_PORT',
          what: `issuer and platform API over TLS`,
        },
      ]
    : []),
];
for (const { server, port, portVariable, what } of servers) {
  await exitOnStartupFailure(service, () => listenOn(server, { host: settings.host, port, portVariable }));
  logger.info(`listening: ${what}`);
}
logger.info(
  {
    seed: settings.seedPath,
    clientsFile: settings.clientsFile ?? 'memory',
    appsFile: settings.appsFile ?? 'memory',
    tokenExchange: settings.tokenExchangeEnabled,
  },
  'dev platform ready',
);

stopOnSignals({
  logger,
  steps: [
    ...servers.map(
      ({ server }) =>
        () =>
          closeServer(server),
    ),
    () => platform.close(),
  ],
  deadlineMs: 2_000,
});
