// GET of one configuration with a cached caller, in requests/s next to a bare Express 5 handler
// measured in the same run; and create throughput on SQLite and on PostgreSQL.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { printComparison, requestsPerSecond } from '@platform/devtools/bench-report';
import { startPostgresCluster } from '@platform/devtools/postgres-cluster';

const secondsPerRound = 2;
const rounds = 3;
const connections = 16;
const cluster = await startPostgresCluster();
const child = spawn(process.execPath, [resolve(import.meta.dirname, 'bench-server.ts')], {
  env: { ...process.env, BENCH_POSTGRES_URL: cluster.url },
  stdio: ['ignore', 'pipe', 'inherit'],
});

try {
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  const urls = JSON.parse(line) as { platform: string; sqlite: string; postgres: string; bare: string };
  const tokenResponse = await fetch(`${urls.platform}/dev/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"username":"oscar"}',
  });
  const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
  const headers = { authversion: 'V0.0.1', authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const body = JSON.stringify({
    name: 'Boiler feed',
    url: 'https://receiver.example/hook',
    deliveryMode: 'Realtime',
    authType: 'Bearer',
    authPayload: '{"token":"receiver-token"}',
  });

  const created = await fetch(`${urls.sqlite}/v2/webhooks?companyId=1`, { method: 'POST', headers, body });
  const { id } = (await created.json()) as { id: string };

  const figures = await requestsPerSecond(
    {
      bare: { url: `${urls.bare}/bare` },
      get: { url: `${urls.sqlite}/v2/webhooks/${id}`, headers },
      createSqlite: { url: `${urls.sqlite}/v2/webhooks?companyId=1`, method: 'POST', headers, body },
      createPostgres: { url: `${urls.postgres}/v2/webhooks?companyId=1`, method: 'POST', headers, body },
    },
    { connections, secondsPerRound, rounds },
  );
  const { bare, get, createSqlite, createPostgres } = figures;

  const baseline = { name: 'bare Express 5 handler (same run)', value: bare, unit: 'req/s' };
  printComparison(
    `Webhook API, ${connections} connections, median of ${rounds} interleaved ${secondsPerRound}-s rounds, servers in their own process`,
    { name: 'GET /v2/webhooks/{id} (cached caller, SQLite)', value: get, unit: 'req/s' },
    baseline,
  );
  printComparison(
    'Create throughput (validate, encrypt credentials, insert)',
    { name: 'POST /v2/webhooks on SQLite (WAL)', value: createSqlite, unit: 'req/s' },
    baseline,
  );
  printComparison(
    'Create throughput on PostgreSQL (the throwaway test cluster: fsync and synchronous_commit off)',
    { name: 'POST /v2/webhooks on PostgreSQL', value: createPostgres, unit: 'req/s' },
    { name: 'POST /v2/webhooks on SQLite (same run)', value: createSqlite, unit: 'req/s' },
  );
} finally {
  child.kill();
  await once(child, 'exit');
  cluster.stop();
}
