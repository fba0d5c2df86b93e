// A person's stream and session bounds hold across gateway replicas: two gateways on one PostgreSQL
// behind start:pg's HAProxy configuration, one person opening 30 subscriptions/listen streams and
// 30 2025-11-25 sessions through the balancer (which spreads them over both) holds
// MCP_MAX_STREAMS_PER_CALLER streams and MCP_MAX_SESSIONS_PER_CALLER sessions in all, not that many
// per replica; the shared ledger counts exactly them.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devSecrets, personToken, startPlatform } from '@platform/dev-platform/testing';
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { killedIfTestFails } from '@platform/devtools/test-processes';
import { createLogger } from '@platform/tool-sdk';
import { closedPort, listenOnFreePort, until } from '@platform/tool-sdk/testing';
import pg from 'pg';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openPostgresStreamLedger } from '../../mcp-server/src/http/postgres-stream-ledger.ts';
import { createMcpGateway, type McpGateway } from '../../mcp-server/src/mcp-gateway.ts';
import { createTokenSeal, openPostgresRegistrationStore } from '../../mcp-server/src/registry/index.ts';
import { loadMcpServerSettings } from '../../mcp-server/src/settings.ts';
import { haproxyConfig } from '../src/stack/haproxy-config.ts';

const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

const perCaller = 10;
const sessionsPerCaller = 7;

describe('two gateways behind HAProxy on one PostgreSQL', () => {
  it('hold one person to MCP_MAX_STREAMS_PER_CALLER streams and MCP_MAX_SESSIONS_PER_CALLER sessions in all when 30 of each are opened through the balancer', async () => {
    const databaseUrl = await freshDatabase(inject('postgresUrl'));
    const schema = `streams_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const [mcpPort, registryPort] = await Promise.all(Array.from({ length: 2 }, () => closedPort()));
    const mcpUrl = `http://127.0.0.1:${String(mcpPort)}/mcp`;
    const platform = await startPlatform({ env: { PLATFORM_EXTRA_RESOURCES: mcpUrl } });
    closers.push(() => platform.close());

    const replicas: { http: { host: string; port: number }; registry: { host: string; port: number } }[] = [];
    const gateways: McpGateway[] = [];
    for (let index = 0; index < 2; index += 1) {
      const http = await listenOnFreePort();
      const settings = loadMcpServerSettings({
        MCP_PUBLIC_URL: mcpUrl,
        PLATFORM_API_BASE_URL: platform.issuer,
        MCP_GATEWAY_CLIENT_SECRET: devSecrets.MCP_GATEWAY_CLIENT_SECRET,
        REGISTRY_ADDRESS: '127.0.0.1:0',
        MCP_MAX_STREAMS_PER_CALLER: String(perCaller),
        MCP_MAX_SESSIONS_PER_CALLER: String(sessionsPerCaller),
      });
      const logger = createLogger({ name: 'mcp-server', level: 'silent' });
      const gateway = createMcpGateway({
        settings,
        logger,
        registrationStore: await openPostgresRegistrationStore(databaseUrl, { logger, schema, tokenSeal: createTokenSeal(settings.clientSecret) }),
        streamLedger: await openPostgresStreamLedger(databaseUrl, { logger, schema }),
      });
      http.server.on('request', gateway.app);
      const registryServing = await gateway.registry.serve(settings.registryAddress);
      closers.push(
        () => http.close(),
        () => gateway.close(),
        () => registryServing.close(),
      );
      gateways.push(gateway);
      const portOf = (address: string) => Number(address.slice(address.lastIndexOf(':') + 1));
      replicas.push({
        http: { host: '127.0.0.1', port: portOf(new URL(http.url).host) },
        registry: { host: '127.0.0.1', port: portOf(registryServing.address) },
      });
    }

    const folder = mkdtempSync(join(tmpdir(), 'haproxy-streams-'));
    closers.push(() => {
      rmSync(folder, { recursive: true, force: true });
    });
    const config = join(folder, 'haproxy.cfg');
    writeFileSync(
      config,
      haproxyConfig({ mcp: { host: '127.0.0.1', port: mcpPort ?? 0 }, registry: { host: '127.0.0.1', port: registryPort ?? 0 }, replicas }),
    );
    const balancer = killedIfTestFails(spawn('haproxy', ['-db', '-f', config], { stdio: 'ignore' }));
    const exited = once(balancer, 'exit');
    closers.push(async () => {
      balancer.kill('SIGTERM');
      await exited;
    });
    await until(async () => (await fetch(`http://127.0.0.1:${String(mcpPort)}/health`).catch(() => undefined))?.ok === true, 'HAProxy passes requests on');

    // 30 subscriptions/listen streams of one person, as an MCP client opens them, none closed by the client.
    const token = await personToken(platform.issuer, 'oscar', { resource: mcpUrl });
    const agent = new Agent({ connections: 100, pipelining: 0 });
    closers.push(() => agent.destroy());
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    };
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const statuses: number[] = [];
    for (let index = 0; index < 30; index += 1) {
      const answer = await request(mcpUrl, {
        dispatcher: agent,
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: `listen-${String(index)}`,
          method: 'subscriptions/listen',
          params: { notifications: { toolsListChanged: true }, _meta: meta },
        }),
      });
      statuses.push(answer.statusCode);
      answer.body.on('error', () => undefined).resume();
    }
    expect(statuses).toEqual(Array(30).fill(200));

    const open = () => gateways.map((gateway) => gateway.sessions().listens);
    await until(
      () => open().reduce((a, b) => a + b, 0) === perCaller,
      `the person holds ${String(perCaller)} streams in all (open: ${JSON.stringify(open())})`,
    );
    // The balancer spread them: both replicas hold some of the newest.
    expect(open().every((count) => count > 0)).toBe(true);
    const reader = new pg.Client({ connectionString: databaseUrl });
    await reader.connect();
    const counted = async (kind: string) =>
      Number((await reader.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.open_streams WHERE kind = $1`, [kind])).rows[0]?.n);
    expect(await counted('stream')).toBe(perCaller);

    // 30 2025-11-25 sessions (initialize, no session id: the balancer spreads them too).
    for (let index = 0; index < 30; index += 1) {
      const answer = await request(mcpUrl, {
        dispatcher: agent,
        method: 'POST',
        headers: { ...headers, 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'initialize' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: index,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sessions-test', version: '1.0.0' } },
        }),
      });
      expect(answer.headers['mcp-session-id']).toBeDefined();
      await answer.body.text();
    }
    const sessions = () => gateways.map((gateway) => gateway.sessions().open);
    await until(() => sessions().reduce((a, b) => a + b, 0) === sessionsPerCaller, `the person holds ${String(sessionsPerCaller)} sessions in all`);
    expect(sessions().every((count) => count > 0)).toBe(true);
    expect(await counted('session')).toBe(sessionsPerCaller);
    await reader.end();
  }, 90_000);
});
