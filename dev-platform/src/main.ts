// Composition root of the dev platform: settings, seed, the two HTTP servers, clean shutdown.
import { createServer } from 'node:http';
import { once } from 'node:events';
import { createLogger } from '@platform/shared';
import { createDevPlatform } from './dev-platform.ts';
import { loadSeedFile, type Seed } from './seed.ts';
import { loadDevPlatformSettings, type DevPlatformSettings } from './settings.ts';

function startupFailure(error: unknown): never {
  // A bad setting or seed is the operator's to fix: say what is wrong, without a stack trace.
  process.stderr.write(`dev-platform cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

let settings: DevPlatformSettings;
let seed: Seed;
try {
  settings = loadDevPlatformSettings(process.env);
  seed = loadSeedFile(settings.seedPath, process.env);
} catch (error) {
  startupFailure(error);
}
const logger = createLogger({ name: 'dev-platform', level: settings.logLevel });
const platform = await createDevPlatform({ settings, seed, logger });

const servers = [
  { server: createServer(platform.app), port: settings.port, what: `issuer and platform API ${settings.issuer}` },
  { server: createServer(platform.aiApp), port: settings.aiPort, what: `AI service ${settings.aiBaseUrl}` },
];
for (const { server, port, what } of servers) {
  server.listen(port, settings.host);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => startupFailure(error))]);
  logger.info(`listening: ${what}`);
}
logger.info({ seed: settings.seedPath, tokenExchange: settings.tokenExchangeEnabled }, 'dev platform ready');

function shutdown(): void {
  logger.info('shutting down');
  for (const { server } of servers) {
    server.close();
    server.closeIdleConnections();
  }
  setTimeout(() => process.exit(0), 2_000).unref();
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
