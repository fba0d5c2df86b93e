// `npm start` and `npm run demo` as a person uses them: the stack started as a child process, ready
// when the banner says so, driven with the MCP SDK client, the demo run against it, stopped with
// Ctrl-C in order, started again on the same data; a taken port refused in one line.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadRegistryProto } from '@platform/proto';
import { afterAll, describe, expect, it } from 'vitest';
import { closeGatewaySession, connectToGateway, personToken } from '../src/stack/platform-session.ts';
import { runNpm, stackEnvironment, takenPorts, type CommandRun, type StackEnvironment } from './stack-process.ts';

const startTimeoutMs = 90_000;
const running: CommandRun[] = [];
afterAll(async () => {
  for (const run of running) run.interrupt();
  await Promise.all(running.map((run) => run.exited));
});

function start(stack: StackEnvironment): CommandRun {
  const run = runNpm(['start'], stack.env);
  running.push(run);
  return run;
}

/** The pid of the node process running the stack (npm start runs it through a shell). */
function runnerOf(run: CommandRun): number {
  const group = run.child.pid ?? 0;
  const ps = execFileSync('ps', ['-o', 'pid=,args=', '-g', String(group)], { encoding: 'utf8' });
  const line = ps.split('\n').find((l) => /^\s*\d+ \S*node \S*start-all-main\.ts/.test(l));
  if (!line) throw new Error(`no runner in the group of npm start:\n${ps}`);
  return Number(line.trim().split(/\s+/)[0]);
}

/** What a command said itself: its output without npm's own lines (`> ...`, `npm error ...`) and blank ones. */
const saidLines = (output: string) =>
  output.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('>') && !/^npm (error|warn|notice) /.test(line));

/** The order in which the output mentions each of `texts`, as their positions. */
const positions = (output: string, texts: readonly string[]) => texts.map((text) => output.indexOf(text));

describe('npm start', () => {
  it(
    'starts every service in order, says when it is ready, serves MCP clients and the demo, stops in reverse order on Ctrl-C, and keeps its data for the next start',
    async () => {
      const stack = await stackEnvironment();
      const first = start(stack);
      await first.waitForLine('The stack is ready.', startTimeoutMs);

      // Each service was started only once the one before was ready.
      const started = positions(first.output(), ['issuer and platform API', '(OpenAPI at', 'the tool registry is listening', 'registered at the gateway']);
      expect(started.every((at) => at >= 0)).toBe(true);
      expect([...started].sort((a, b) => a - b)).toEqual(started);
      // The banner names this run's addresses and how to connect.
      const banner = first.output().slice(first.output().indexOf('The stack is ready.'));
      for (const text of [
        stack.platformUrl,
        stack.webhookApiUrl,
        stack.mcpUrl,
        'npm run demo',
        'npm run token -- oscar',
        `npx mcp-remote ${stack.mcpUrl}`,
        '--transport http',
        `GET ${stack.webhookApiUrl}/metrics: asks for your WEBHOOK_METRICS_TOKEN as a bearer token`,
      ]) {
        expect(banner).toContain(text);
      }
      // /metrics counts every tenant's deliveries: the token the stack was given, or nothing.
      const metricsToken = stack.env.WEBHOOK_METRICS_TOKEN ?? '';
      expect((await fetch(`${stack.webhookApiUrl}/metrics`)).status).toBe(401);
      expect((await fetch(`${stack.webhookApiUrl}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).status).toBe(200);

      // An MCP client as a seeded person.
      const { accessToken } = await personToken(stack.platformUrl, 'oscar', stack.mcpUrl);
      const client = await connectToGateway(stack.mcpUrl, accessToken, 'npm-start-test');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['whoami', 'create_webhook', 'add_scope']));
      const whoami = await client.callTool({ name: 'whoami', arguments: {} });
      expect(whoami.structuredContent).toMatchObject({ userId: 'u-oscar' });

      // gRPC runs over mutual TLS with the certificates npm start issued: a plaintext client of the
      // registry gets no answer, and the private keys are the owner's alone.
      expect(first.output()).toContain('gRPC runs over mutual TLS: issued development certificates in');
      const tls = join(stack.env.WEBHOOK_DATA_DIR ?? '', 'tls');
      expect(statSync(tls).mode & 0o777).toBe(0o700);
      for (const key of ['gateway-key.pem', 'tool-service-key.pem']) expect(statSync(join(tls, key)).mode & 0o777).toBe(0o600);
      const plaintext = new (loadRegistryProto().ToolRegistry)(stack.env.REGISTRY_ADDRESS ?? '', grpc.credentials.createInsecure());
      const refused = await new Promise<grpc.ServiceError | null>((resolve) => {
        plaintext.Heartbeat({ registrationId: 'x' }, { deadline: Date.now() + 10_000 }, (error) => {
          resolve(error);
        });
      });
      plaintext.close();
      expect(refused?.code).toBe(grpc.status.UNAVAILABLE);

      // Ctrl-C in the middle of a demo ends it, and it cleans up what it made.
      const interrupted = runNpm(['run', 'demo'], stack.env);
      await interrupted.waitForLine('[4/10]', 30_000);
      interrupted.interrupt();
      await interrupted.exited;
      expect(interrupted.output()).toMatch(/cleanup: webhook \S+ deleted/);
      expect(interrupted.output()).toContain('interrupted; cleaning up');
      const left = await client.callTool({ name: 'list_webhooks', arguments: { companyId: 1 } });
      expect((left.structuredContent as { webhooks: { name: string }[] }).webhooks.filter((w) => w.name.startsWith('Demo '))).toEqual([]);

      // The demo, against this stack, sees every step.
      const demo = runNpm(['run', 'demo'], stack.env);
      expect(await demo.exited, demo.output()).toBe(0);
      for (let step = 1; step <= 10; step++) expect(demo.output()).toContain(`[${step}/10]`);
      expect(demo.output()).toContain('Demo complete: every step was seen.');
      // The receiver checked every delivery's Standard Webhooks signature with the webhook's secret.
      expect(demo.output()).toContain("verified with the webhook's signing secret by the standardwebhooks library");
      expect(demo.output()).toMatch(/webhook-signature: v1,\S+/);
      expect(demo.output()).toMatch(/cleanup: webhook \S+ deleted/);

      // Something to find after a restart: a webhook made through the tools.
      const created = await client.callTool({
        name: 'create_webhook',
        arguments: { companyId: 1, name: 'Kept across restarts', url: 'https://example.com/hook', deliveryMode: 'Batch' },
      });
      const webhookId = (created.structuredContent as { webhook: { id: string } }).webhook.id;
      await closeGatewaySession(client);

      // npm itself ends on the signal; the stack's runner goes on stopping the services, then says so.
      first.interrupt();
      await first.waitForLine('npm start    | stopped', 30_000);
      const stopped = positions(first.output(), [
        'stopping tool-service',
        'deregistered from the gateway',
        'stopping mcp-server',
        'stopping webhook-api',
        'stopping dev-platform',
        'npm start    | stopped',
      ]);
      expect(stopped.every((at) => at >= 0)).toBe(true);
      expect([...stopped].sort((a, b) => a - b)).toEqual(stopped);
      expect(await takenPorts(stack.env)).toEqual([]);

      const second = start(stack);
      await second.waitForLine('The stack is ready.', startTimeoutMs);
      // The certificates of the first start were good for this one.
      expect(second.output()).toContain(`gRPC runs over mutual TLS with the development certificates in ${tls}`);
      const again = await connectToGateway(stack.mcpUrl, (await personToken(stack.platformUrl, 'oscar', stack.mcpUrl)).accessToken, 'npm-start-test');
      const kept = await again.callTool({ name: 'get_webhook', arguments: { webhookConfigId: webhookId } });
      expect(kept.structuredContent).toMatchObject({ webhook: { id: webhookId, name: 'Kept across restarts' } });
      await again.callTool({ name: 'delete_webhook', arguments: { webhookConfigId: webhookId } });
      await closeGatewaySession(again);
      // The runner killed outright: every service it started ends by itself, freeing its ports.
      process.kill(runnerOf(second), 'SIGKILL');
      await expect.poll(() => takenPorts(stack.env), { timeout: 15_000, interval: 250 }).toEqual([]);

      // No secret of the stack, and no person's token, in anything the commands printed.
      for (const output of [first.output(), second.output(), demo.output()]) {
        for (const secret of [...stack.secrets, accessToken]) expect(output).not.toContain(secret);
      }
    },
    4 * startTimeoutMs,
  );

  it('refuses a port already in use with one line naming the port and the variable that moves it, and starts nothing', async () => {
    const holder = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const port = (holder.address() as { port: number }).port;
    try {
      const stack = await stackEnvironment({ MCP_PORT: String(port) });
      const run = start(stack);
      expect(await run.exited).toBe(1);
      expect(saidLines(run.output())).toEqual([`mcp-server cannot start: port ${port} on 127.0.0.1 is already in use; set MCP_PORT to another port`]);
      expect(await takenPorts({ ...stack.env, MCP_PORT: '0' })).toEqual([]);
    } finally {
      holder.close();
    }
  });

  it('names every taken port in one line, so that one run finds them all', async () => {
    const holders = await Promise.all(
      [0, 1, 2].map(async () => {
        const holder = createServer();
        holder.listen(0, '127.0.0.1');
        await once(holder, 'listening');
        return holder;
      }),
    );
    const [platform, mcp, api] = holders.map((holder) => String((holder.address() as { port: number }).port));
    try {
      const stack = await stackEnvironment({ PLATFORM_PORT: platform ?? '', MCP_PORT: mcp ?? '', WEBHOOK_API_PORT: api ?? '' });
      const run = start(stack);
      expect(await run.exited).toBe(1);
      const lines = saidLines(run.output());
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^3 ports cannot be used, so nothing was started: /);
      for (const [port, variable] of [
        [platform, 'PLATFORM_PORT'],
        [mcp, 'MCP_PORT'],
        [api, 'WEBHOOK_API_PORT'],
      ]) {
        expect(lines[0]).toContain(`port ${port ?? ''} on 127.0.0.1 is already in use (${variable ?? ''}`);
      }
    } finally {
      for (const holder of holders) holder.close();
    }
  });

  it('refuses a port fetch refuses to connect to in one line naming the variable and why, before anything starts', async () => {
    const stack = await stackEnvironment({ PLATFORM_PORT: '6000' });
    const run = start(stack);
    expect(await run.exited).toBe(1);
    expect(saidLines(run.output())).toEqual([
      'npm start cannot start: Invalid settings: PLATFORM_PORT must not be 6000: fetch refuses to connect to it (a blocked port); choose another.',
    ]);
  });

  it('npm run demo and npm run token refuse a bad option or variable in one line, exit code 2', async () => {
    const stack = await stackEnvironment();
    const demo = runNpm(['run', '-s', 'demo', '--', '--strat'], stack.env);
    expect(await demo.exited).toBe(2);
    expect(demo.output().trim().split('\n')).toEqual([expect.stringMatching(/^npm run demo: Unknown option '--strat'/)]);
    const token = runNpm(['run', '-s', 'token', '--', 'oscar'], { ...stack.env, PLATFORM_PORT: 'abc' });
    expect(await token.exited).toBe(2);
    expect(token.output()).toContain('npm run token: Invalid settings: PLATFORM_PORT must be a port number (0 to 65535).');
    expect(token.output()).not.toContain('    at ');
  });

  it('npm run demo without a running stack says how to start one, and exits 1', async () => {
    const stack = await stackEnvironment();
    const demo = runNpm(['run', 'demo'], stack.env);
    expect(await demo.exited).toBe(1);
    expect(demo.output()).toContain(
      `the stack is not running (nothing answers at ${stack.platformUrl}): start it with npm start in another terminal, or run npm run demo -- --start`,
    );
  });
});
