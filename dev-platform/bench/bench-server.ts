// The servers the dev-platform benchmark loads, in a process of their own so that the load
// generator does not share their event loop: the dev platform, and a bare Express 5 handler as
// the same-run baseline. Prints their addresses as one JSON line, then serves until killed.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import express from 'express';
import { createLogger } from '@platform/tool-sdk';
import { createDevPlatform } from '../src/dev-platform.ts';
import { parseSeed } from '../src/world/seed.ts';
import { loadDevPlatformSettings } from '../src/settings.ts';
import { listenOnFreePort } from '@platform/tool-sdk/testing';

const secrets = JSON.parse(process.env.BENCH_SECRETS ?? '{}') as Record<string, string>;
const platformServer = await listenOnFreePort();
const aiServer = await listenOnFreePort();
const bareServer = await listenOnFreePort();
const settings = loadDevPlatformSettings({ PLATFORM_ISSUER: platformServer.url, PLATFORM_AI_BASE_URL: aiServer.url, LOG_LEVEL: 'warn' });
const seed = parseSeed(JSON.parse(readFileSync(resolve(import.meta.dirname, '../seed.json'), 'utf8')), secrets);
const platform = await createDevPlatform({ settings, seed, logger: createLogger({ name: 'dev-platform', level: 'warn' }) });
platformServer.server.on('request', platform.app);
aiServer.server.on('request', platform.aiApp);

const bare = express();
bare.get('/bare', (_req, res) => {
  res.json({ id: 'u-oscar', companies: [] });
});
bareServer.server.on('request', bare);

process.stdout.write(`${JSON.stringify({ platform: platformServer.url, bare: bareServer.url })}\n`);
