// The tool service's composition root: settings from the environment (and ./.env, which
// `npm run tool-env` writes), the app's identity, the tools; then it serves gRPC (with health and
// reflection), registers at the gateway and keeps the registration alive until SIGINT or SIGTERM,
// when it deregisters and lets running calls finish.
import { createLogger, createToolApp, exitOnStartupFailure, loadPlatformMcpSettings, platformAppIdentity, stopOnSignals } from '@platform/tool-sdk';
import { choiceTools } from './company-choice.tools.ts';
import { permissionTools } from './permissions.tools.ts';

// ./.env when there is one; a variable the environment sets wins over it.
exitOnStartupFailure('example-tool-service', () => {
  try {
    process.loadEnvFile('.env');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`.env cannot be read (${(error as Error).message})`, { cause: error });
  }
});
const settings = exitOnStartupFailure('example-tool-service', () => loadPlatformMcpSettings(process.env));
const logger = createLogger({ name: settings.serviceName });
const app = createToolApp({ settings, identity: platformAppIdentity(settings), logger });
app.registerTools([...permissionTools, ...choiceTools]);
const serving = await exitOnStartupFailure('example-tool-service', () => app.serve());
logger.info({ address: serving.address }, 'serving');
stopOnSignals({ logger, steps: [() => serving.close()] });
