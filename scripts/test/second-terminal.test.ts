// A second terminal finds the stack a first one started, wherever its ports were moved: npm start
// records its addresses in data/stack.json, and npm run demo and npm run token, with no variable
// set, use them and say so. The commands run in a project copy of the test's own (its data/ and a
// .env holding the secrets, as a person's would), so nothing lands in the repository.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { killedIfTestFails } from '@platform/devtools/test-processes';
import { afterAll, describe, expect, it } from 'vitest';
import { closeGatewaySession, connectToGateway } from '../src/stack/platform-session.ts';
import { projectCopy, runNpm, shellVariables, stackEnvironment, stackSecrets, type CommandRun } from './stack-process.ts';

const execFileAsync = promisify(execFile);
const running: CommandRun[] = [];
afterAll(async () => {
  for (const run of running) run.interrupt();
  await Promise.all(running.map((run) => run.exited));
});

/** What a command said itself: its output without npm's own lines and blank ones. */
const saidLines = (output: string) =>
  output.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('>') && !/^npm (error|warn|notice) /.test(line));

describe('a second terminal', () => {
  it('finds a stack started on moved ports through data/stack.json: npm run token and npm run demo work with no variable set', async () => {
    const stack = await stackEnvironment();
    // The first terminal moves every port; the secrets are in .env, which both terminals read.
    const project = projectCopy(
      `${Object.entries(stackSecrets)
        .map(([name, value]) => `${name}=${value}`)
        .join('\n')}\n`,
    );
    const firstTerminal = Object.fromEntries(Object.entries(stack.env).filter(([name]) => name !== 'WEBHOOK_DATA_DIR' && !(name in stackSecrets)));
    const secondTerminal = shellVariables();
    const start = runNpm(['start'], firstTerminal, project);
    running.push(start);
    await start.waitForLine('The stack is ready.', 90_000);
    expect(start.output()).toContain("these commands find this stack's addresses in data/stack.json");

    // The file: this run's addresses, for its owner alone, and no secret.
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
    for (const secret of stack.secrets) expect(recorded).not.toContain(secret);

    // A second npm start on the same data folder is refused before anything starts.
    const again = runNpm(['start'], firstTerminal, project);
    expect(await again.exited).toBe(1);
    expect(saidLines(again.output())).toEqual([
      expect.stringMatching(
        new RegExp(
          `^npm start cannot start: data/stack.json names a stack that is running \\(npm start, pid \\d+, ${stack.platformUrl}\\): stop it first, or set WEBHOOK_DATA_DIR to another folder$`,
        ),
      ),
    ]);

    const found = `using the stack npm start started at `;
    const token = runNpm(['run', '-s', 'token', '--', 'oscar'], secondTerminal, project);
    expect(await token.exited, token.output()).toBe(0);
    const [said, accessToken] = saidLines(token.output());
    expect(said).toMatch(new RegExp(`^${found}.+ \\(data/stack\\.json\\): platform ${stack.platformUrl}, MCP ${stack.mcpUrl}$`));
    const client = await connectToGateway(stack.mcpUrl, accessToken ?? '', 'second-terminal-test');
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await closeGatewaySession(client);

    const demo = runNpm(['run', 'demo'], secondTerminal, project);
    expect(await demo.exited, demo.output()).toBe(0);
    expect(demo.output()).toContain(found);
    expect(demo.output()).toContain(`The telemetry demo, against ${stack.mcpUrl}`);
    expect(demo.output()).toContain(`-> http://127.0.0.1:${stack.env.DEMO_RECEIVER_PORT ?? ''}/telemetry/`);
    expect(demo.output()).toContain('Demo complete: every step was seen.');

    // What the demo says to try next works as printed, from the same folder, with no variable set.
    const commands = demo
      .output()
      .split('\n')
      .filter((line) => /^ {4}(curl|npx @modelcontextprotocol\/inspector) /.test(line) && !line.includes('<webhook id>'))
      .map((line) => line.trim());
    expect(commands).toHaveLength(2);
    const [inspector, curl] = commands;
    const shell = (command: string) => {
      // Killed if the test fails (or times out) first.
      const running = execFileAsync('sh', ['-c', command], { cwd: project, env: secondTerminal, timeout: 60_000 });
      killedIfTestFails(running.child);
      return running;
    };
    expect((await shell(inspector ?? '')).stdout).toContain('"name": "create_webhook"');
    expect(Array.isArray(JSON.parse((await shell(`${curl ?? ''} --fail --silent`)).stdout))).toBe(true);

    // The SDK example, run against the same stack with nothing set: its tool reaches an agent.
    const example = runNpm(['run', '-s', 'example', '--', 'hello-tools'], secondTerminal, project);
    await example.waitForLine('registered at the gateway', 60_000);
    expect(example.output()).toContain(found);
    const caller = await connectToGateway(stack.mcpUrl, accessToken ?? '', 'second-terminal-example');
    expect((await caller.callTool({ name: 'count_devices', arguments: { companyId: 1 } })).structuredContent).toEqual({ companyId: 1, devices: 2 });
    await closeGatewaySession(caller);
    example.interrupt();
    await example.exited;

    start.interrupt();
    await start.waitForLine('npm start    | stopped', 30_000);
    expect(existsSync(file)).toBe(false);
    // With the stack stopped, the command says there is no stack file before it tries the default address.
    const after = runNpm(['run', '-s', 'token', '--', 'oscar'], secondTerminal, project);
    await after.exited;
    expect(after.output()).toContain('no data/stack.json');

    for (const output of [start.output(), demo.output(), again.output(), example.output()]) {
      for (const secret of [...stack.secrets, accessToken ?? '']) expect(output).not.toContain(secret);
    }
  }, 240_000);
});
