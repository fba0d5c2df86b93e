// start:pg's balancer for real: HAProxy, with the configuration start:pg generates, in front of two
// gateway processes sharing their registrations in PostgreSQL. A tool service registers through it;
// MCP SDK clients list and call through it on both revisions; a tool's question to the person,
// asked at one gateway, is answered at the other (its sealed state is all that travels, and the
// answered state is refused at either); one gateway is killed (SIGKILL) and the stateless
// revision's calls go on through the other, while the 2025-11-25 session it held is answered 404
// and a new one works. MCP tasks: the official suite's tasks scenarios pass through the balancer
// (each task's requests spread over both replicas), and a task running at the killed gateway is
// failed, with a message, by the other when its caller next asks.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { devSecrets, personToken, startPlatform } from '@platform/dev-platform/testing';
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { createLogger, loadPlatformMcpSettings, platformAppIdentity } from '@platform/tool-sdk';
import { closedPort, until } from '@platform/tool-sdk/testing';
import { createToolApp, defineTool } from '@platform/tool-sdk/tools';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { haproxyConfig } from '../src/stack/haproxy-config.ts';
import { sourceCondition } from '@platform/devtools/source-condition';
import { killedIfTestFails } from '@platform/devtools/test-processes';
import { conformanceTaskScenarios, runConformance } from '@platform/devtools/conformance-suite';
import { modernRequest, sessionRequest } from '@platform/devtools/modern-request';
import { registerConformanceTools } from '../../examples/conformance-tools.ts';
import { repoRoot } from '../src/repo-root.ts';

const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** A process of the test's, stopped after it; its output kept for the failure message. */
function started(command: string, args: readonly string[], env: Record<string, string>): { child: ChildProcess; output: () => string } {
  // Killed at once if the test fails (the afterAll stops the rest): a failed run once left two gateways running.
  const child = killedIfTestFails(spawn(command, [...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  closers.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  return { child, output: () => output };
}

const healthy = async (url: string) => (await fetch(url).catch(() => undefined))?.ok === true;

async function mcpClient(mcpUrl: string, token: string, era: 'legacy' | 'modern') {
  const client = new Client({ name: 'balanced-test', version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: { token: () => Promise.resolve(token) } });
  await client.connect(transport);
  closers.push(() => client.close());
  return { client, sessionId: transport.sessionId };
}

/** One raw 2026-07-28 tools/call of confirm_thing at `url` (a chosen replica), with a round's answers when given. */
const statelessCall = (url: string, token: string, args: Record<string, unknown>, round: Record<string, unknown> = {}) =>
  modernRequest(url, token, 'tools/call', { name: 'confirm_thing', arguments: args, ...round }, { tasks: false });

const echoed = async (client: Client, text: string) => {
  const result = await client.callTool({ name: 'echo', arguments: { text } });
  expect(result.isError, JSON.stringify(result)).toBeFalsy();
  return JSON.stringify(result.structuredContent);
};

describe('two gateways behind HAProxy', () => {
  it('take registrations and calls through it on both revisions, and one going down costs only its 2025-11-25 sessions', async () => {
    const databaseUrl = await freshDatabase(inject('postgresUrl'));
    const [mcpPort, registryPort, ...replicaPorts] = await Promise.all(Array.from({ length: 6 }, () => closedPort()));
    const mcpUrl = `http://127.0.0.1:${mcpPort ?? 0}/mcp`;
    const platform = await startPlatform({ env: { PLATFORM_EXTRA_RESOURCES: mcpUrl } });
    closers.push(() => platform.close());

    const replicas = [0, 1].map((index) => ({
      http: { host: '127.0.0.1', port: replicaPorts[index * 2] ?? 0 },
      registry: { host: '127.0.0.1', port: replicaPorts[index * 2 + 1] ?? 0 },
    }));
    const gateways = replicas.map(({ http, registry }) =>
      started(process.execPath, [sourceCondition, join(repoRoot, 'mcp-server/src/main.ts')], {
        MCP_PORT: String(http.port),
        REGISTRY_ADDRESS: `127.0.0.1:${registry.port}`,
        MCP_PUBLIC_URL: mcpUrl,
        PLATFORM_API_BASE_URL: platform.issuer,
        MCP_GATEWAY_CLIENT_SECRET: devSecrets.MCP_GATEWAY_CLIENT_SECRET,
        DATABASE_URL: databaseUrl,
        TASK_HEARTBEAT_SECONDS: '1',
        LOG_LEVEL: 'warn',
      }),
    );
    const config = join(mkdtempSync(join(tmpdir(), 'haproxy-')), 'haproxy.cfg');
    // start:pg's configuration, with HAProxy's request log on stdout for a failing step's message.
    writeFileSync(
      config,
      haproxyConfig({ mcp: { host: '127.0.0.1', port: mcpPort ?? 0 }, registry: { host: '127.0.0.1', port: registryPort ?? 0 }, replicas })
        .replace('global\n', 'global\n  log stdout format raw local0\n')
        .replace('defaults\n', 'defaults\n  log global\n  option httplog\n')
        .replace(
          'frontend mcp\n',
          'frontend mcp\n  capture request header mcp-protocol-version len 12\n  capture request header mcp-name len 64\n  log-format "%ci:%cp [%tr] %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST B=%B U=%U %tsc %ac/%fc/%bc/%sc/%rc %hr %{+Q}r"\n',
        ),
    );
    const balancer = started('haproxy', ['-db', '-f', config], {});
    const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
      try {
        return await run();
      } catch (error) {
        if (error instanceof Error) error.message = `${name}: ${error.message}\nHAProxy:\n${balancer.output()}`;
        throw error;
      }
    };
    for (const [index, { http }] of replicas.entries()) {
      await until(() => healthy(`http://127.0.0.1:${http.port}/health`), `gateway ${index + 1} is up: ${gateways[index]?.output() ?? ''}`, 30_000);
    }
    await until(() => healthy(`http://127.0.0.1:${mcpPort ?? 0}/health`), `HAProxy passes requests on: ${balancer.output()}`, 30_000);

    // The tool service registers (and heartbeats) through the balancer, at whichever gateway it reaches.
    const settings = loadPlatformMcpSettings({
      PLATFORM_API_BASE_URL: platform.issuer,
      APP_CLIENT_ID: 'webhook-tools',
      APP_CLIENT_SECRET: devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET,
      SERVICE_NAME: 'balanced',
      GATEWAY_ADDRESS: `127.0.0.1:${registryPort ?? 0}`,
      CALLBACK_ADDRESS: '127.0.0.1:0',
      TOOL_REGISTRATION_TTL_SECONDS: '30',
    });
    const app = createToolApp({ settings, identity: platformAppIdentity(settings), logger: createLogger({ name: 'balanced', level: 'silent' }) });
    app.registerTools([
      defineTool({
        name: 'echo',
        title: 'Echo',
        description: 'Echoes its text.',
        inputSchema: z.strictObject({ text: z.string() }),
        annotations: { readOnlyHint: true },
        handler: ({ text }) => ({ echoed: text }),
      }),
      defineTool({
        name: 'confirm_thing',
        title: 'Confirm a thing',
        description: 'Asks the person to confirm, then says what they answered.',
        inputSchema: z.strictObject({ thing: z.string() }),
        handler: async ({ thing }, ctx) => {
          const answer = await ctx.elicit({ message: `Go ahead with ${thing}?`, requestedSchema: z.object({ sure: z.boolean() }) });
          return { thing, answered: answer.action === 'accept' && answer.content.sure ? 'yes' : 'no' };
        },
      }),
    ]);
    // And the conformance suite's fixtures, tasks among them.
    registerConformanceTools(app);
    const serving = await step('the tool service registers through HAProxy', () => app.serve({ register: true }));
    closers.push(() => serving.close(1_000));

    const token = await personToken(platform.issuer, 'oscar', { resource: mcpUrl });
    const modern = await step('a 2026-07-28 client connects', () => mcpClient(mcpUrl, token, 'modern'));
    await step('the tool is listed', () =>
      until(async () => (await modern.client.listTools()).tools.some((tool) => tool.name === 'echo'), 'the balanced tool is listed', 15_000),
    );
    // Round robin: consecutive stateless calls reach both gateways, and each knows the tool.
    for (const text of ['one', 'two', 'three', 'four']) expect(await step(`call ${text} (before the kill)`, () => echoed(modern.client, text))).toContain(text);

    // A question asked at one gateway and answered at the other: the two rounds of the call go to
    // both replicas (round robin), and the call completes with the answer.
    const asking = new Client(
      { name: 'balanced-asking', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } },
    );
    asking.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { sure: true } }));
    await asking.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: { token: () => Promise.resolve(token) } }));
    closers.push(() => asking.close());
    // Round robin sends the two rounds to the two replicas unless another request of the test's
    // clients (a stream opened in the background) comes between them: a few tries, one must straddle.
    const roundsOfOneCall = async (attempt: number) => {
      const loggedBefore = balancer.output().length;
      const confirmed = await step(`a question is answered across the replicas (try ${attempt})`, () =>
        asking.callTool({ name: 'confirm_thing', arguments: { thing: 'the export' } }),
      );
      expect(confirmed.structuredContent).toEqual({ thing: 'the export', answered: 'yes' });
      const logged = () =>
        balancer
          .output()
          .slice(loggedBefore)
          .split('\n')
          .filter((line) => line.includes('confirm_thing'));
      await until(() => logged().length >= 2, 'HAProxy logged both rounds');
      return logged();
    };
    let rounds: string[] = [];
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      rounds = await roundsOfOneCall(attempt);
      if (new Set(rounds.map((line) => /gateways\/(gateway-\d)/.exec(line)?.[1])).size === 2) break;
    }
    const servedBy = new Set(rounds.map((line) => /gateways\/(gateway-\d)/.exec(line)?.[1]));
    expect(servedBy, rounds.join('\n')).toEqual(new Set(['gateway-1', 'gateway-2']));
    // A state answered at one replica is refused at the other: the replicas spend states in PostgreSQL.
    const [first, second] = replicas.map((replica) => `http://127.0.0.1:${replica.http.port}/mcp`);
    const asked = await step('a raw first round at gateway 1', () => statelessCall(first ?? '', token, { thing: 'the purge' }));
    const requestState = (asked.result as { requestState?: string } | undefined)?.requestState ?? '';
    const [key = ''] = Object.keys((asked.result as { inputRequests?: Record<string, unknown> } | undefined)?.inputRequests ?? {});
    const answer = { inputResponses: { [key]: { action: 'accept', content: { sure: true } } }, requestState };
    expect((await step('answered at gateway 2', () => statelessCall(second ?? '', token, { thing: 'the purge' }, answer))).result).toMatchObject({
      structuredContent: { answered: 'yes' },
    });
    expect((await step('replayed at gateway 1', () => statelessCall(first ?? '', token, { thing: 'the purge' }, answer))).error).toMatchObject({
      code: -32602,
      message: 'Invalid or expired requestState',
    });
    const legacy = await step('a 2025-11-25 session opens', () => mcpClient(mcpUrl, token, 'legacy'));
    expect((await step('the session lists', () => legacy.client.listTools())).tools.map((tool) => tool.name)).toContain('echo');
    expect(await step('the session calls', () => echoed(legacy.client, 'pinned'))).toContain('pinned');

    // The gateway holding the session goes down hard.
    const sessionTools = (url: string) => sessionRequest(url, token, legacy.sessionId ?? '');
    const holder =
      (await step('gateway 1 asked for the session', () => sessionTools(`http://127.0.0.1:${replicas[0]?.http.port ?? 0}/mcp`))).status === 404 ? 1 : 0;
    // Gone, not going: a request that reaches a replica in the moment it dies (in its socket, never
    // read) is reset, which HAProxy does not retry; on a kept-alive connection it closes the client's
    // for the client to retry, and the MCP client reports the call failed. Calls from here on find
    // its port closed, which HAProxy retries on the other replica.
    // The official suite's requirements of 2026-07-28 through the balancer, tasks among them: a task's calls and polls reach both replicas.
    const results = mkdtempSync(join(tmpdir(), 'conformance-'));
    const suite = await runConformance(
      process.env,
      mcpUrl,
      token,
      ['--requirements', '2026-07-28', '-o', results, '--expected-failures', join(repoRoot, 'mcp-server/test/conformance-baseline.yml')],
      120_000,
    );
    expect(suite.output, `HAProxy:\n${balancer.output().slice(-4_000)}`).toContain('Baseline check passed');
    expect(suite.exitCode, suite.output).toBe(0);
    for (const scenario of conformanceTaskScenarios) {
      const [run] = readdirSync(results).filter((name) => name.startsWith(`server-${scenario}-2`));
      const checks = JSON.parse(readFileSync(join(results, run ?? 'missing', 'checks.json'), 'utf8')) as { status: string }[];
      expect(checks.filter((check) => check.status === 'SUCCESS').length, scenario).toBeGreaterThan(0);
      expect(
        checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING'),
        scenario,
      ).toEqual([]);
    }
    // A task running at the gateway about to be killed.
    const holderUrl = `http://127.0.0.1:${replicas[holder]?.http.port ?? 0}/mcp`;
    const otherUrl = `http://127.0.0.1:${replicas[1 - holder]?.http.port ?? 0}/mcp`;
    const orphan = await step('a task starts at the gateway to be killed', () =>
      modernRequest(holderUrl, token, 'tools/call', { name: 'slow_compute', arguments: { seconds: 60 } }),
    );
    const taskId = String((orphan.result as { taskId?: string } | undefined)?.taskId);
    expect(orphan.result).toMatchObject({ resultType: 'task', status: 'working' });

    const killed = gateways[holder];
    if (!killed) throw new Error('no gateway to kill');
    const exited = once(killed.child, 'exit');
    killed.child.kill('SIGKILL');
    await exited;

    // Its task does not stay working for ever: the other gateway fails it, saying why, once its heartbeats stop.
    let polled: Record<string, unknown> = {};
    await step('the orphaned task is failed by the other gateway', () =>
      until(
        async () => {
          polled = (await modernRequest(otherUrl, token, 'tasks/get', { taskId })).result ?? {};
          return polled.status === 'failed';
        },
        'the task failed',
        15_000,
      ),
    );
    expect(polled).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(String(polled.statusMessage)).toMatch(/the gateway replica that ran the task stopped/);

    // Stateless calls go on through the other gateway.
    for (const text of ['five', 'six', 'seven', 'eight'])
      expect(await step(`call ${text} (after the kill)`, () => echoed(modern.client, text))).toContain(text);
    // The session is unknown there: 404, as for any unknown session; a new session works.
    const orphaned = await step('the orphaned session asks', () => sessionTools(mcpUrl));
    expect(orphaned.status).toBe(404);
    expect(await orphaned.json()).toMatchObject({ error: { message: 'Session not found' } });
    const again = await step('a new session opens', () => mcpClient(mcpUrl, token, 'legacy'));
    expect(await step('the new session calls', () => echoed(again.client, 'new session'))).toContain('new session');
  }, 240_000);
});
