// Token-exchange requests/s and GET /api/me requests/s, each next to a bare Express 5 handler's
// requests/s measured in the same run against a server in the same kind of process.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { printComparison, requestsPerSecond } from '@platform/devtools/bench-report';
import { secretNamesOf } from '@platform/devtools/dev-secrets';
import { sourceCondition } from '@platform/devtools/source-condition';

const secondsPerRound = 2;
const rounds = 3;
const connections = 16;
const seedPath = resolve(import.meta.dirname, '../seed.json');
const secrets = Object.fromEntries(secretNamesOf(seedPath).map((name) => [name, randomBytes(24).toString('base64url')]));

const child = spawn(process.execPath, [sourceCondition, resolve(import.meta.dirname, 'bench-server.ts')], {
  env: { ...process.env, BENCH_SECRETS: JSON.stringify(secrets) },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
const { platform, bare } = JSON.parse(line) as { platform: string; bare: string };

async function post(url: string, body: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const response = await fetch(url, { method: 'POST', headers, body });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

const person = String((await post(`${platform}/dev/token`, JSON.stringify({ username: 'oscar' }), { 'content-type': 'application/json' })).access_token);
const form = { 'content-type': 'application/x-www-form-urlencoded' };
const app = String(
  (
    await post(`${platform}/token`, 'grant_type=client_credentials&scope=api', {
      ...form,
      authorization: basic('webhook-tools', secrets.WEBHOOK_TOOLS_CLIENT_SECRET ?? ''),
    })
  ).access_token,
);
const exchangeBody = new URLSearchParams({
  grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
  subject_token: person,
  subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
  actor_token: app,
  actor_token_type: 'urn:ietf:params:oauth:token-type:access_token',
}).toString();
const exchangeHeaders = { ...form, authorization: basic('mcp-gateway', secrets.MCP_GATEWAY_CLIENT_SECRET ?? '') };
const delegated = String((await post(`${platform}/token`, exchangeBody, exchangeHeaders)).access_token);

try {
  const figures = await requestsPerSecond(
    {
      bare: { url: `${bare}/bare` },
      me: { url: `${platform}/api/me`, headers: { authorization: `Bearer ${delegated}` } },
      exchange: { url: `${platform}/token`, method: 'POST', headers: exchangeHeaders, body: exchangeBody },
    },
    { connections, secondsPerRound, rounds },
  );
  const bareFigure = { name: 'bare Express 5 handler (same run)', value: figures.bare, unit: 'req/s' };
  printComparison(
    `Dev platform, ${connections} connections, median of ${rounds} interleaved ${secondsPerRound}-s rounds, server in its own process`,
    { name: 'GET /api/me (delegated token: verify + narrow)', value: figures.me, unit: 'req/s' },
    bareFigure,
  );
  printComparison(
    'Token exchange (verify two JWTs, sign one RS256 JWT)',
    { name: 'POST /token grant_type=token-exchange', value: figures.exchange, unit: 'req/s' },
    bareFigure,
  );
} finally {
  child.kill();
}
