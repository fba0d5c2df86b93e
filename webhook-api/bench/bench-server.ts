// The servers the webhook-api benchmark loads, in a process of their own: the dev platform, the
// webhook API on SQLite and on PostgreSQL, the same API on SQLite with the caller cache of before
// (permissions kept the whole 60 s, no refresh), and a bare Express 5 handler as the same-run baseline.
import express from 'express';
import { startPlatform } from '@platform/dev-platform/testing';
import { listenOnFreePort } from '@platform/tool-sdk/testing';
import { defaultLimits } from '../src/configs/limits.ts';
import { newStoreLocation, startWebhookApi } from '../test/harness.ts';

const postgresUrl = process.env.BENCH_POSTGRES_URL ?? '';
const platform = await startPlatform();
// The create benchmark makes thousands of configurations for one company: lift that limit.
const limits = { ...defaultLimits, configsPerCompany: 10_000_000 };
const sqlite = await startWebhookApi({ location: await newStoreLocation('SQLite', postgresUrl), platformUrl: platform.issuer, logLevel: 'warn', limits });
const identityOnly = await startWebhookApi({
  location: await newStoreLocation('SQLite', postgresUrl),
  platformUrl: platform.issuer,
  logLevel: 'warn',
  permissionsMaxAgeMs: null,
});
const postgres = await startWebhookApi({ location: await newStoreLocation('PostgreSQL', postgresUrl), platformUrl: platform.issuer, logLevel: 'warn', limits });
const bare = await listenOnFreePort();
const app = express();
app.get('/bare', (_req, res) => {
  res.json({ id: '3f1c', companyId: 1, name: 'Boiler feed', url: 'https://receiver.example/hook', method: 'POST', deliveryMode: 'Realtime' });
});
bare.server.on('request', app);
process.stdout.write(
  `${JSON.stringify({ platform: platform.issuer, sqlite: sqlite.url, identityOnly: identityOnly.url, postgres: postgres.url, bare: bare.url })}\n`,
);
