// GET of one configuration with a cached caller, in requests/s next to a bare Express 5 handler
// measured in the same run (and the servers' CPU time per request of each), and next to the caller
// cache of before (permissions kept the whole 60 s): what refreshing permissions ahead of use costs.
// How long after a role is removed the first refusal comes, under load, on the real clock. Create
// throughput on SQLite and PostgreSQL.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { printComparison, requestsPerSecond } from '@platform/devtools/bench-report';
import { printTarget } from '@platform/devtools/bench-targets';
import { startPostgresCluster } from '@platform/devtools/postgres-cluster';
import { defaultPermissionsMaxAgeMs } from '../src/http/caller-guard.ts';
import { cpuMicrosPerRequest } from './server-cpu.ts';
import { sourceCondition } from '@platform/devtools/source-condition';

const secondsPerRound = 2;
const rounds = 3;
const connections = 16;
const cluster = await startPostgresCluster();
const child = spawn(process.execPath, [sourceCondition, resolve(import.meta.dirname, 'bench-server.ts')], {
  env: { ...process.env, BENCH_POSTGRES_URL: cluster.url },
  stdio: ['ignore', 'pipe', 'inherit'],
});

try {
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  const urls = JSON.parse(line) as { platform: string; sqlite: string; identityOnly: string; postgres: string; bare: string };
  const tokenOf = async (username: string) => {
    const tokenResponse = await fetch(`${urls.platform}/dev/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username }),
    });
    return ((await tokenResponse.json()) as { access_token: string }).access_token;
  };
  const token = await tokenOf('oscar');
  const headers = { authversion: 'V0.0.1', authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const body = JSON.stringify({
    name: 'Boiler feed',
    url: 'https://receiver.example/hook',
    deliveryMode: 'Realtime',
    authType: 'Bearer',
    authPayload: '{"token":"receiver-token"}',
  });

  const createdAt = async (base: string) => {
    const created = await fetch(`${base}/v2/webhooks?companyId=1`, { method: 'POST', headers, body });
    return ((await created.json()) as { id: string }).id;
  };
  const id = await createdAt(urls.sqlite);
  const identityOnlyId = await createdAt(urls.identityOnly);

  const figures = await requestsPerSecond(
    {
      bare: { url: `${urls.bare}/bare` },
      get: { url: `${urls.sqlite}/v2/webhooks/${id}`, headers },
      getIdentityOnly: { url: `${urls.identityOnly}/v2/webhooks/${identityOnlyId}`, headers },
      createSqlite: { url: `${urls.sqlite}/v2/webhooks?companyId=1`, method: 'POST', headers, body },
      createPostgres: { url: `${urls.postgres}/v2/webhooks?companyId=1`, method: 'POST', headers, body },
    },
    { connections, secondsPerRound, rounds },
  );
  const { bare, get, getIdentityOnly, createSqlite, createPostgres } = figures;

  const baseline = { name: 'bare Express 5 handler (same run)', value: bare, unit: 'req/s' };
  printComparison(
    `Webhook API, ${connections} connections, median of ${rounds} interleaved ${secondsPerRound}-s rounds, servers in their own process`,
    { name: 'GET /v2/webhooks/{id} (cached caller, SQLite)', value: get, unit: 'req/s' },
    baseline,
  );
  // The same two in CPU time: the servers' process is one CPU's worth of work, so its time per request bounds req/s.
  const cpu = await cpuMicrosPerRequest(
    child.pid ?? 0,
    { bare: { url: `${urls.bare}/bare` }, get: { url: `${urls.sqlite}/v2/webhooks/${id}`, headers } },
    { connections, secondsPerRound, rounds },
  );
  printComparison(
    `Servers' CPU time per request, median of ${rounds} interleaved ${secondsPerRound}-s rounds (their threads included)`,
    { name: 'GET /v2/webhooks/{id} (cached caller, SQLite)', value: cpu.get, unit: 'µs' },
    { name: 'bare Express 5 handler (same run)', value: cpu.bare, unit: 'µs' },
  );
  console.log('\nTargets');
  printTarget({ name: 'cached GET /v2/webhooks/{id}', figure: get / bare, unit: 'x', of: 'bare Express', atLeast: 0.5 });
  printComparison(
    `What refreshing permissions ahead of use costs on GET (max age ${defaultPermissionsMaxAgeMs} ms, refreshed past half of it)`,
    { name: 'GET /v2/webhooks/{id}, permissions refreshed', value: get, unit: 'req/s' },
    { name: 'GET /v2/webhooks/{id}, permissions kept 60 s', value: getIdentityOnly, unit: 'req/s' },
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

  // Last, since it takes oscar's rights at company 1: the role removed while GETs keep coming.
  const revokedAfter = await firstRefusalUnderLoad(`${urls.sqlite}/v2/webhooks/${id}`, headers, async () => {
    const removed = await fetch(`${urls.platform}/api/companies/1/role-assignments/u-oscar`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await tokenOf('olivia')}`, 'content-type': 'application/json' },
      body: '{"roles":[]}',
    });
    if (!removed.ok) throw new Error(`removing the role answered ${removed.status}`);
  });
  printComparison(
    `Revocation under load (${connections} connections of GETs): a removed role's first refusal, on the real clock`,
    { name: 'role removed -> first 403 (median of connections)', value: revokedAfter.median, unit: 'ms' },
    { name: 'the permissions max age, the bound', value: defaultPermissionsMaxAgeMs, unit: 'ms' },
  );
  console.log(`  the last connection refused after ${revokedAfter.last.toFixed(0)} ms`);
} finally {
  child.kill();
  await once(child, 'exit');
  cluster.stop();
}

/**
 * Milliseconds from the start of `revoke` (the request that removes the right: a conservative
 * start) to each connection's first non-200 answer, with `connections` loops of GETs running
 * throughout: the median and the last connection's.
 */
async function firstRefusalUnderLoad(url: string, headers: Record<string, string>, revoke: () => Promise<void>): Promise<{ median: number; last: number }> {
  const revocation: { startedAt?: number } = {};
  const loop = async () => {
    for (;;) {
      const answer = await fetch(url, { headers });
      await answer.arrayBuffer();
      if (answer.status === 200) continue;
      if (revocation.startedAt === undefined || answer.status !== 403) throw new Error(`GET answered ${answer.status} before the role was removed`);
      return performance.now() - revocation.startedAt;
    }
  };
  const loops = Array.from({ length: connections }, loop);
  await new Promise((r) => setTimeout(r, 1_500)); // the loops in their stride, the cached answer part-way through its max age
  revocation.startedAt = performance.now();
  await revoke();
  const times = (await Promise.all(loops)).sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)] ?? Number.NaN, last: times.at(-1) ?? Number.NaN };
}
