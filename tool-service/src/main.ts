// Composition root of the tool service: settings, logger, the app's identity and its tools, then
// gRPC on CALLBACK_ADDRESS (registered at the gateway) until a signal stops it.
import { format } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { createLogger, exitOnStartupFailure, platformAppIdentity, stopOnSignals } from '@platform/shared';
import { listenFailure } from './listen-failure.ts';
import { loadToolServiceSettings } from './settings.ts';

const service = 'tool-service';
const settings = exitOnStartupFailure(service, () => loadToolServiceSettings(process.env));
const logger = createLogger({ name: service, level: settings.logLevel });
// grpc-js writes its own reports straight to stderr; they belong in the service's log, where a
// failure to start stays the one line exitOnStartupFailure prints.
grpc.setLogger({
  error: (...parts: unknown[]) => {
    logger.warn({ grpc: format(...parts) }, 'grpc-js reported a problem');
  },
  info: (...parts: unknown[]) => {
    logger.debug({ grpc: format(...parts) }, 'grpc-js');
  },
  debug: (...parts: unknown[]) => {
    logger.trace({ grpc: format(...parts) }, 'grpc-js');
  },
});
// The tools are imported here, not at the top: a bad definition (defineTool checks each as it is
// made) then stops the start with one line naming the tool and the field, not a stack trace.
const app = await exitOnStartupFailure(service, async () => {
  const { createToolService } = await import('./tool-service.ts');
  return createToolService({ settings, identity: platformAppIdentity(settings), logger });
});
const serving = await exitOnStartupFailure(service, () =>
  app.serve().catch((error: unknown) => {
    throw listenFailure(error, settings.callbackAddress);
  }),
);

stopOnSignals({ logger, steps: [() => serving.close()] });
