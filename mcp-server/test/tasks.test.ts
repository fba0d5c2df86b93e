// MCP tasks across two gateway replicas on one PostgreSQL, with the real platform and a real tool
// service: a task started at one replica is polled, answered, cancelled and finished at the other;
// only its own caller sees it; its tool holds a delegated token only while the person polls (the
// polls renew it, a task nobody polls is cancelled when its token runs out, with short-lived tokens
// standing in for the platform's five minutes); a person's open tasks are bounded.
import { devSecrets, personToken, seedWithToolPublishers, startPlatform, type RunningPlatform } from '@platform/dev-platform/testing';
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { createLogger } from '@platform/tool-sdk';
import { listenOnFreePort, until } from '@platform/tool-sdk/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createMcpGateway, type McpGateway } from '../src/mcp-gateway.ts';
import { createSealedBox } from '../src/sealed-box.ts';
import { createTokenSeal, openPostgresRegistrationStore } from '../src/registry/index.ts';
import { loadMcpServerSettings } from '../src/settings.ts';
import { openPostgresTaskStore } from '../src/tasks/postgres-task-store.ts';
import { freshSchema } from './registry-harness.ts';
import { modernRequest } from '@platform/devtools/modern-request';
import { startTaskProbe, type TaskProbe } from './task-harness.ts';

const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

interface Replica {
  readonly gateway: McpGateway;
  readonly registryAddress: string;
  readonly mcpUrl: string;
}

let platform: RunningPlatform;
let a: Replica;
let b: Replica;
let probe: TaskProbe;
let publicUrl = '';

async function startReplica(databaseUrl: string, schema: string, http: Awaited<ReturnType<typeof listenOnFreePort>>): Promise<Replica> {
  const settings = loadMcpServerSettings({
    MCP_PUBLIC_URL: publicUrl,
    PLATFORM_API_BASE_URL: platform.issuer,
    MCP_GATEWAY_CLIENT_SECRET: devSecrets.MCP_GATEWAY_CLIENT_SECRET,
    REGISTRY_ADDRESS: '127.0.0.1:0',
    TASK_MAX_PER_CALLER: '3',
    TASK_POLL_INTERVAL_MS: '250',
    LOG_LEVEL: 'silent',
  });
  const logger = createLogger({ name: 'mcp-server', level: 'silent' });
  const registrationStore = await openPostgresRegistrationStore(databaseUrl, { logger, schema, tokenSeal: createTokenSeal(settings.clientSecret) });
  const taskStore = await openPostgresTaskStore(databaseUrl, { logger, schema, box: createSealedBox(settings.clientSecret, 'task content') });
  const gateway = createMcpGateway({ settings, logger, registrationStore, taskStore });
  http.server.on('request', gateway.app);
  const registry = await gateway.registry.serve(settings.registryAddress);
  closers.push(
    () => http.close(),
    () => gateway.close(),
    () => registry.close(),
  );
  return { gateway, registryAddress: registry.address, mcpUrl: `${http.url}/mcp` };
}

beforeAll(async () => {
  const databaseUrl = await freshDatabase(inject('postgresUrl'));
  const [httpA, httpB] = [await listenOnFreePort(), await listenOnFreePort()];
  // Both answer to one public URL (as behind the balancer): one person token serves at either.
  publicUrl = `${httpA.url}/mcp`;
  platform = await startPlatform({ seed: seedWithToolPublishers('fleet-insights'), env: { PLATFORM_EXTRA_RESOURCES: publicUrl } });
  closers.push(() => platform.close());
  const schema = freshSchema();
  a = await startReplica(databaseUrl, schema, httpA);
  b = await startReplica(databaseUrl, schema, httpB);
  probe = await startTaskProbe(platform.issuer, a.registryAddress);
  closers.push(() => probe.close());
  await until(() => b.gateway.registry.catalog().byName('fleet-insights__long_job') !== undefined, 'both replicas list the task tools');
});

const tokenOf = (username: string, expiresIn?: number) => personToken(platform.issuer, username, { resource: publicUrl, ...(expiresIn && { expiresIn }) });

/** Starts `tool` at `replica` as a task: its id. */
async function startTask(replica: Replica, token: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const { result, error } = await modernRequest(replica.mcpUrl, token, 'tools/call', { name: `fleet-insights__${tool}`, arguments: args });
  expect(error).toBeUndefined();
  expect(result).toMatchObject({ resultType: 'task', status: 'working' });
  return String(result?.taskId);
}

const poll = async (replica: Replica, token: string, taskId: string) => (await modernRequest(replica.mcpUrl, token, 'tasks/get', { taskId })).result ?? {};

/** Polls at `replica` (a fresh token from `token()` each time) until the task's status is `status`: the task then. */
async function pollUntil(replica: Replica, token: () => Promise<string>, taskId: string, status: string, timeoutMs = 20_000): Promise<Record<string, unknown>> {
  let seen: Record<string, unknown> = {};
  await until(
    async () => {
      seen = await poll(replica, await token(), taskId);
      return seen.status === status;
    },
    `the task reached ${status}`,
    timeoutMs,
  );
  return seen;
}

describe('MCP tasks at two replicas', () => {
  it('are started at one replica, polled and finished at the other', async () => {
    const token = await tokenOf('oscar');
    const taskId = await startTask(a, token, 'long_job', { ms: 1_000 });
    // Durable at once, at every replica.
    expect(await poll(b, token, taskId)).toMatchObject({ taskId, status: 'working' });
    const done = await pollUntil(b, () => Promise.resolve(token), taskId, 'completed');
    expect(done.result).toMatchObject({ structuredContent: { done: 'ok', callerId: 'u-oscar' } });
  });

  it('wait on the person’s answer at no replica, and run again where the answer arrives', async () => {
    const token = await tokenOf('oscar');
    const taskId = await startTask(a, token, 'confirm_job', { ms: 200 });
    const asking = await pollUntil(b, () => Promise.resolve(token), taskId, 'input_required');
    expect(Object.keys(asking.inputRequests as object)).toEqual(['sure']);
    const runsBefore = probe.runs.length;
    expect(
      (await modernRequest(b.mcpUrl, token, 'tasks/update', { taskId, inputResponses: { sure: { action: 'accept', content: { sure: true } } } })).result,
    ).toEqual(expect.objectContaining({ resultType: 'complete' }));
    const done = await pollUntil(a, () => Promise.resolve(token), taskId, 'completed');
    expect(done.result).toMatchObject({ structuredContent: { done: 'ok' } });
    expect(probe.runs.length).toBe(runsBefore + 1);
    // Counted by status where each change was made, with no person or company among the labels.
    const counted = `${await a.gateway.metrics.registry.metrics()}${await b.gateway.metrics.registry.metrics()}`;
    for (const status of ['input_required', 'working', 'completed'])
      expect(counted).toContain(`platform_gateway_task_status_changes_total{status="${status}"}`);
    expect(counted).not.toMatch(/task_status_changes_total\{[^}]*(caller|company|u-oscar)/);
  });

  it('are cancelled at the replica asked, which stops the tool running at the other', async () => {
    const token = await tokenOf('oscar');
    const taskId = await startTask(a, token, 'long_job', { ms: 60_000 });
    await until(() => probe.runs.some((run) => run.tool === 'long_job' && !run.aborted && run.endToken === undefined), 'the tool runs');
    const running = probe.runs.at(-1);
    expect((await modernRequest(b.mcpUrl, token, 'tasks/cancel', { taskId })).result).toEqual(expect.objectContaining({ resultType: 'complete' }));
    expect(await poll(a, token, taskId)).toMatchObject({ status: 'cancelled', statusMessage: 'Cancelled at your request.' });
    await until(() => running?.aborted === true, 'the tool’s signal aborted at the other replica');
  });

  it('are their caller’s alone: another person’s poll, answer or cancel finds nothing', async () => {
    const token = await tokenOf('oscar');
    const taskId = await startTask(b, token, 'long_job', { ms: 3_000 });
    const other = await tokenOf('olivia');
    for (const method of ['tasks/get', 'tasks/cancel']) {
      expect((await modernRequest(a.mcpUrl, other, method, { taskId })).error).toMatchObject({
        code: -32602,
        message: 'Failed to retrieve task: Task not found',
      });
    }
    expect((await modernRequest(a.mcpUrl, other, 'tasks/update', { taskId, inputResponses: {} })).error).toMatchObject({ code: -32602 });
    // Untouched: the caller still sees it run to its end.
    expect(await pollUntil(a, () => Promise.resolve(token), taskId, 'completed')).toMatchObject({ result: { structuredContent: { done: 'ok' } } });
  });

  it(
    'keep their tool’s token alive while the person polls: a platform call late in the task succeeds with the renewed token',
    { timeout: 45_000 },
    async () => {
      // Tokens of 3 s stand in for the platform's 5 minutes; the task runs three of their lifetimes.
      const short = () => tokenOf('oscar', 3);
      const taskId = await startTask(a, await short(), 'long_job', { ms: 9_000 });
      const done = await pollUntil(b, short, taskId, 'completed', 30_000);
      expect(done.result).toMatchObject({ structuredContent: { done: 'ok' } });
      const run = probe.runs.at(-1);
      expect(run?.platform).toBe('ok');
      expect(run?.endToken).not.toBe(run?.startToken);
    },
  );

  it('are cancelled when nobody polls them while their token lives, and their tool stops', async () => {
    const taskId = await startTask(b, await tokenOf('oscar', 2), 'long_job', { ms: 30_000 });
    await until(() => probe.runs.at(-1)?.aborted === true, 'the tool’s signal aborted when its token ran out', 10_000);
    const after = await poll(a, await tokenOf('oscar'), taskId);
    expect(after).toMatchObject({ status: 'cancelled' });
    expect(String(after.statusMessage)).toMatch(/^Cancelled: nobody asked about the task while its delegated token was valid/);
  });

  it('are bounded per person across the replicas, and a cancelled one frees its place', async () => {
    const token = await tokenOf('vera');
    const ids = [await startTask(a, token, 'long_job', { ms: 60_000 }), await startTask(b, token, 'long_job', { ms: 60_000 })];
    ids.push(await startTask(a, token, 'long_job', { ms: 60_000 }));
    const refused = await modernRequest(b.mcpUrl, token, 'tools/call', { name: 'fleet-insights__long_job', arguments: { ms: 10 } });
    expect(refused.result).toMatchObject({ isError: true, _meta: { 'platform/error': { code: 'TOO_MANY_TASKS' } } });
    // Another person is not held back by vera's tasks.
    const others = await startTask(b, await tokenOf('bjorn'), 'long_job', { ms: 10 });
    expect(others).not.toBe('');
    await modernRequest(b.mcpUrl, token, 'tasks/cancel', { taskId: ids[0] });
    ids.push(await startTask(b, token, 'long_job', { ms: 60_000 }));
    for (const taskId of ids) await modernRequest(a.mcpUrl, token, 'tasks/cancel', { taskId });
  });

  it('refuse a client that does not declare the extension, for a tool that runs only as a task; run the others at once', async () => {
    const token = await tokenOf('oscar');
    const required = await modernRequest(a.mcpUrl, token, 'tools/call', { name: 'fleet-insights__confirm_job', arguments: { ms: 1 } }, { tasks: false });
    expect(required.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } });
    const plain = await modernRequest(a.mcpUrl, token, 'tools/call', { name: 'fleet-insights__long_job', arguments: { ms: 10 } }, { tasks: false });
    expect(plain.result).toMatchObject({ resultType: 'complete', structuredContent: { done: 'ok' } });
  });
});
