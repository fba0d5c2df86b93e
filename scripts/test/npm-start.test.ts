// `npm start` and `npm run demo` as a person uses them, one stack for the whole story: started as a
// child process from a project folder of the person's own (the secrets in its .env, every port moved),
// ready when the banner says so; a second terminal that sets nothing finds it through data/stack.json
// (npm run token, an MCP client, the demo and what it prints to try next, the SDK example); Ctrl-C
// ends a demo, then the stack in order; started again on the same data. Then the refusals, with no
// stack: a taken port in one line, a bad option or variable, no stack running.
import { execFile, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { loadRegistryProto } from '@platform/proto';
import { killedIfTestFails } from '@platform/devtools/test-processes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeGatewaySession, connectToGateway, personToken } from '../src/stack/platform-session.ts';
import { projectCopy, runNpm, shellVariables, stackEnvironment, stackSecrets, takenPorts, type CommandRun, type StackEnvironment } from './stack-process.ts';

const execFileAsync = promisify(execFile);
const startTimeoutMs = 90_000;
const running: CommandRun[] = [];
afterAll(async () => {
  for (const run of running) run.interrupt();
  await Promise.all(running.map((run) => run.exited));
});

function start(env: Record<string, string>, cwd?: string): CommandRun {
  const run = runNpm(['start'], env, cwd);
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

describe('npm start, from a folder of its own, and a second terminal', () => {
  // The metrics token in .env is not the one the first terminal sets: the environment wins over the file.
  const staleMetricsToken = 'stale-metrics-token-in-the-dot-env';
  let stack: StackEnvironment;
  let project: string;
  let firstTerminal: Record<string, string>;
  let first: CommandRun;
  /** What a person's second terminal carries: nothing of the stack. */
  const secondTerminal = shellVariables();
  /** Every output, scanned for secrets at the end. */
  const outputs: (() => string)[] = [];
  const tokens: string[] = [];
  const found = `using the stack npm start started at `;

  beforeAll(async () => {
    stack = await stackEnvironment();
    // The secrets in .env, as a person's would be, beside a variable only the dev platform reads.
    const dotEnv = { ...stackSecrets, WEBHOOK_METRICS_TOKEN: staleMetricsToken, PLATFORM_ACCESS_TOKEN_TTL_SECONDS: '1234' };
    project = projectCopy(
      `${Object.entries(dotEnv)
        .map(([name, value]) => `${name}=${value}`)
        .join('\n')}\n`,
    );
    // The first terminal moves every port; its data folder is the project's data/.
    firstTerminal = Object.fromEntries(
      Object.entries(stack.env).filter(([name]) => name !== 'WEBHOOK_DATA_DIR' && (!(name in stackSecrets) || name === 'WEBHOOK_METRICS_TOKEN')),
    );
    first = start(firstTerminal, project);
    outputs.push(() => first.output());
    await first.waitForLine('The stack is ready.', startTimeoutMs);
  }, startTimeoutMs + 10_000);

  it("starts every service in order, each once the one before is ready, and says when it is ready with this run's addresses", () => {
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
      "these commands find this stack's addresses in data/stack.json",
    ]) {
      expect(banner).toContain(text);
    }
  });

  it('reads .env for what the environment does not set, and the environment wins over it', async () => {
    // A variable only the dev platform reads, from .env alone.
    expect((await personToken(stack.platformUrl, 'oscar')).expiresIn).toBe(1234);
    // /metrics counts every tenant's deliveries: the token the first terminal set, not the one of .env, or nothing.
    const scrape = (token?: string) =>
      fetch(`${stack.webhookApiUrl}/metrics`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }).then((answer) => answer.status);
    expect(await scrape()).toBe(401);
    expect(await scrape(staleMetricsToken)).toBe(401);
    expect(await scrape(stack.env.WEBHOOK_METRICS_TOKEN)).toBe(200);
  });

  it('runs gRPC over mutual TLS with the certificates it issued, their keys its owner’s alone', async () => {
    expect(first.output()).toContain('gRPC runs over mutual TLS: issued development certificates in');
    const tls = join(project, 'data/tls');
    expect(statSync(tls).mode & 0o777).toBe(0o700);
    for (const key of ['gateway-key.pem', 'tool-service-key.pem']) expect(statSync(join(tls, key)).mode & 0o777).toBe(0o600);
    // A plaintext client of the registry gets no answer.
    const plaintext = new (loadRegistryProto().ToolRegistry)(stack.env.REGISTRY_ADDRESS ?? '', grpc.credentials.createInsecure());
    const refused = await new Promise<grpc.ServiceError | null>((resolve) => {
      plaintext.Heartbeat({ registrationId: 'x' }, { deadline: Date.now() + 10_000 }, (error) => {
        resolve(error);
      });
    });
    plaintext.close();
    expect(refused?.code).toBe(grpc.status.UNAVAILABLE);
  });

  it('records its addresses in data/stack.json, for its owner alone and with no secret, and refuses a second npm start on the same data', async () => {
    const file = join(project, 'data/stack.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const recorded = readFileSync(file, 'utf8');
    expect(JSON.parse(recorded)).toMatchObject({
      command: 'npm start',
      addresses: {
        platformUrl: stack.platformUrl,
        mcpUrl: stack.mcpUrl,
        webhookApiUrls: [stack.webhookApiUrl],
        receiverUrl: `http://127.0.0.1:${stack.env.DEMO_RECEIVER_PORT ?? ''}`,
      },
    });
    for (const secret of [...stack.secrets, staleMetricsToken]) expect(recorded).not.toContain(secret);

    const again = start(firstTerminal, project);
    outputs.push(() => again.output());
    expect(await again.exited).toBe(1);
    expect(saidLines(again.output())).toEqual([
      expect.stringMatching(
        new RegExp(
          `^npm start cannot start: data/stack.json names a stack that is running \\(npm start, pid \\d+, ${stack.platformUrl}\\): stop it first, or set WEBHOOK_DATA_DIR to another folder$`,
        ),
      ),
    ]);
  });

  it('serves a second terminal that sets nothing: npm run token, an MCP client, npm run demo and the commands it prints', async () => {
    const token = runNpm(['run', '-s', 'token', '--', 'oscar'], secondTerminal, project);
    expect(await token.exited, token.output()).toBe(0);
    const [said, accessToken = ''] = saidLines(token.output());
    tokens.push(accessToken);
    expect(said).toMatch(new RegExp(`^${found}.+ \\(data/stack\\.json\\): platform ${stack.platformUrl}, MCP ${stack.mcpUrl}$`));
    const client = await connectToGateway(stack.mcpUrl, accessToken, 'npm-start-test');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['whoami', 'create_webhook', 'add_scope']));
    expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toMatchObject({ userId: 'u-oscar' });
    await closeGatewaySession(client);

    const demo = runNpm(['run', 'demo'], secondTerminal, project);
    outputs.push(() => demo.output());
    expect(await demo.exited, demo.output()).toBe(0);
    const output = demo.output();
    expect(output).toContain(found);
    expect(output).toContain(`The telemetry demo, against ${stack.mcpUrl}`);
    expect(output).toContain(`-> http://127.0.0.1:${stack.env.DEMO_RECEIVER_PORT ?? ''}/telemetry/`);
    for (let step = 1; step <= 10; step++) expect(output).toContain(`[${step}/10]`);
    expect(output).toContain('Demo complete: every step was seen.');
    // The receiver checked every delivery's Standard Webhooks signature with the webhook's secret.
    expect(output).toContain("verified with the webhook's signing secret by the standardwebhooks library");
    expect(output).toMatch(/webhook-signature: v1,\S+/);
    expect(output).toMatch(/cleanup: webhook \S+ deleted/);

    // What the demo says to try next works as printed, from the same folder, with no variable set.
    const commands = output
      .split('\n')
      .filter((line) => /^ {4}(curl|npx @modelcontextprotocol\/inspector) /.test(line) && !line.includes('<webhook id>'))
      .map((line) => line.trim());
    expect(commands).toHaveLength(2);
    const [inspector, curl] = commands;
    const shell = (command: string) => {
      // Killed if the test fails (or times out) first.
      const run = execFileAsync('sh', ['-c', command], { cwd: project, env: secondTerminal, timeout: 60_000 });
      killedIfTestFails(run.child);
      return run;
    };
    expect((await shell(inspector ?? '')).stdout).toContain('"name": "create_webhook"');
    expect(Array.isArray(JSON.parse((await shell(`${curl ?? ''} --fail --silent`)).stdout))).toBe(true);
  });

  it('serves the SDK example, run from the second terminal with nothing set: its tool reaches an agent', async () => {
    const example = runNpm(['run', '-s', 'example', '--', 'hello-tools'], secondTerminal, project);
    outputs.push(() => example.output());
    await example.waitForLine('registered at the gateway', 60_000);
    expect(example.output()).toContain(found);
    const caller = await connectToGateway(stack.mcpUrl, tokens[0] ?? '', 'npm-start-example');
    expect((await caller.callTool({ name: 'count_devices', arguments: { companyId: 1 } })).structuredContent).toEqual({ companyId: 1, devices: 2 });
    await closeGatewaySession(caller);
    // Ctrl-C as a terminal sends it, to the whole group: the example stops in order, deregistered.
    example.interrupt();
    await example.exited;
    expect(example.output()).toContain('deregistered from the gateway');
  });

  it('ends a demo on Ctrl-C, which cleans up what it made', async () => {
    const interrupted = runNpm(['run', 'demo'], secondTerminal, project);
    outputs.push(() => interrupted.output());
    await interrupted.waitForLine('[4/10]', 30_000);
    interrupted.interrupt();
    await interrupted.exited;
    expect(interrupted.output()).toMatch(/cleanup: webhook \S+ deleted/);
    expect(interrupted.output()).toContain('interrupted; cleaning up');
    const client = await connectToGateway(stack.mcpUrl, tokens[0] ?? '', 'npm-start-test');
    const left = await client.callTool({ name: 'list_webhooks', arguments: { companyId: 1 } });
    expect((left.structuredContent as { webhooks: { name: string }[] }).webhooks.filter((w) => w.name.startsWith('Demo '))).toEqual([]);
    await closeGatewaySession(client);
  });

  it(
    'stops in reverse order on Ctrl-C, freeing its ports and data/stack.json, and keeps its data for the next start',
    async () => {
      // Something to find after a restart: a webhook made through the tools.
      const client = await connectToGateway(stack.mcpUrl, tokens[0] ?? '', 'npm-start-test');
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
      expect(existsSync(join(project, 'data/stack.json'))).toBe(false);
      // With the stack stopped, a second terminal's command says there is no stack file before it tries the default address.
      const after = runNpm(['run', '-s', 'token', '--', 'oscar'], secondTerminal, project);
      await after.exited;
      expect(after.output()).toContain('no data/stack.json');

      const second = start(firstTerminal, project);
      outputs.push(() => second.output());
      await second.waitForLine('The stack is ready.', startTimeoutMs);
      // The certificates of the first start were good for this one.
      expect(second.output()).toContain(`gRPC runs over mutual TLS with the development certificates in ${join(project, 'data/tls')}`);
      const again = await connectToGateway(stack.mcpUrl, (await personToken(stack.platformUrl, 'oscar', stack.mcpUrl)).accessToken, 'npm-start-test');
      const kept = await again.callTool({ name: 'get_webhook', arguments: { webhookConfigId: webhookId } });
      expect(kept.structuredContent).toMatchObject({ webhook: { id: webhookId, name: 'Kept across restarts' } });
      await again.callTool({ name: 'delete_webhook', arguments: { webhookConfigId: webhookId } });
      await closeGatewaySession(again);
      // The runner killed outright: every service it started ends by itself, freeing its ports.
      process.kill(runnerOf(second), 'SIGKILL');
      await expect.poll(() => takenPorts(stack.env), { timeout: 15_000, interval: 250 }).toEqual([]);
    },
    2 * startTimeoutMs,
  );

  it('printed no secret of the stack, and no person’s token, in anything', () => {
    expect(tokens).toHaveLength(1);
    for (const output of outputs) {
      for (const secret of [...stack.secrets, staleMetricsToken, ...tokens]) expect(output()).not.toContain(secret);
    }
  });
});

describe('npm start, npm run demo and npm run token, refusing what cannot work', () => {
  it('refuses a port already in use with one line naming the port and the variable that moves it, and starts nothing', async () => {
    const holder = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const port = (holder.address() as { port: number }).port;
    try {
      const stack = await stackEnvironment({ MCP_PORT: String(port) });
      const run = start(stack.env);
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
      const run = start(stack.env);
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
    const run = start(stack.env);
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
