// Composition root of the tool service: settings, logger, the app's identity and its tools, then
// gRPC on CALLBACK_ADDRESS (registered at the gateway) until a signal stops it.
import { createLogger, exitOnStartupFailure, platformAppIdentity, stopOnSignals } from '@platform/tool-sdk';
import { endWithParent } from '@platform/tool-sdk/internal';
import { startTelemetry } from '@platform/tool-sdk/observability';
import { loadToolServiceProcessSettings } from './settings.ts';

const service = 'tool-service';
endWithParent(); // started by npm start's runner: gone with it
// The settings, the /metrics listener and the tracing, in one parse naming every bad variable.
const { settings, metrics, telemetry: telemetrySettings } = exitOnStartupFailure(service, () => loadToolServiceProcessSettings(process.env));
const logger = createLogger({ name: service, level: settings.logLevel });
const telemetry = startTelemetry(telemetrySettings);
// The tools are imported here, not at the top: a bad definition (defineTool checks each as it is
// made) then stops the start with one line naming the tool and the field, not a stack trace.
const app = await exitOnStartupFailure(service, async () => {
  const { createToolService } = await import('./tool-service.ts');
  return createToolService({ settings, identity: platformAppIdentity(settings), logger, metrics });
});
const serving = await exitOnStartupFailure(service, () => app.serve());

if (serving.metricsPort !== undefined) logger.info({ port: serving.metricsPort }, 'serving /metrics');

stopOnSignals({ logger, steps: [() => serving.close(), () => telemetry.shutdown()] });
