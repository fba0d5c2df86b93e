// Composition root of the dev platform: settings, seed, the two HTTP servers, clean shutdown.
import { createServer } from 'node:http';
import { once } from 'node:events';
import { createLogger } from '@platform/shared';
import { createDevPlatform } from './dev-platform.ts';
import { loadSeedFile } from './seed.ts';
import { loadDevPlatformSettings } from './settings.ts';

const settings = loadDevPlatformSettings(process.env);
const logger = createLogger({ name: 'dev-platform', level: settings.logLevel });
const seed = loadSeedFile(settings.seedPath, process.env);
const platform = await createDevPlatform({ settings, seed, logger });

const servers = [
  { server: createServer(platform.app), port: settings.port, what: `issuer and platform API ${settings.issuer}` },
  { server: createServer(platform.aiApp), port: settings.aiPort, what: `AI service ${settings.aiBaseUrl}` },
];
for (const { server, port, what } of servers) {
  server.listen(port, settings.host);
  await once(server, 'listening');
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
