// The stack's runner starting real processes (the fixture services of runner-fixture/): what it says
// when one never gets ready, or stops while starting. The port check before anything starts is a
// unit test beside the runner (src/stack/runner.test.ts).
import { join } from 'node:path';
import { closedPort } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { startStack, type StackOutput } from '../src/stack/runner.ts';
import type { StackProcess } from '../src/stack/processes.ts';
import { repoRoot } from '../src/repo-root.ts';

describe('starting the processes', () => {
  const fixture = (name: string) => join(repoRoot, 'scripts/test/runner-fixture', name);
  const quiet: StackOutput = { line: () => undefined, note: () => undefined };

  it('gives up on a process that takes connections and never answers, within the ready time, saying what it last saw', async () => {
    const port = await closedPort();
    const silent: StackProcess = {
      name: 'silent',
      entry: fixture('silent-service.ts'),
      env: { PORT: String(port) },
      listens: [],
      ready: { kind: 'http', url: `http://127.0.0.1:${port}/health` },
      serves: '',
    };
    const started = Date.now();
    await expect(startStack([silent], { PATH: process.env.PATH }, quiet, undefined, 1_500)).rejects.toThrow(
      new RegExp(`^silent was not ready within 1\\.5 s \\(last check: GET http://127\\.0\\.0\\.1:${port}/health: no answer within \\d+ ms\\)$`),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  /** A process that runs and listens on a port of its own, so that the probe of `url` never sees it. */
  const elsewhere = async (url: string, ready: StackProcess['ready'] = { kind: 'http', url }): Promise<StackProcess> => ({
    name: 'elsewhere',
    entry: fixture('silent-service.ts'),
    env: { PORT: String(await closedPort()) },
    listens: [],
    ready,
    serves: '',
  });

  it('says what its readiness check tried and why it failed, the cause fetch keeps to itself: a refused connection', async () => {
    const port = await closedPort();
    await expect(startStack([await elsewhere(`http://127.0.0.1:${port}/health`)], { PATH: process.env.PATH }, quiet, undefined, 1_000)).rejects.toThrow(
      `elsewhere was not ready within 1 s (last check: GET http://127.0.0.1:${port}/health: connect ECONNREFUSED 127.0.0.1:${port})`,
    );
  });

  it('says what its readiness check tried and why it failed: a port fetch refuses', async () => {
    await expect(startStack([await elsewhere('http://127.0.0.1:6000/health')], { PATH: process.env.PATH }, quiet, undefined, 1_000)).rejects.toThrow(
      'elsewhere was not ready within 1 s (last check: GET http://127.0.0.1:6000/health: bad port: fetch refuses to connect to this port)',
    );
  });

  it("names the sign-in the tool service's readiness check tried, and why it failed", async () => {
    const port = await closedPort();
    const ready = { kind: 'tools', mcpUrl: 'http://127.0.0.1:1/mcp', platformUrl: `http://127.0.0.1:${port}`, person: 'oscar' } as const;
    await expect(startStack([await elsewhere('', ready)], { PATH: process.env.PATH }, quiet, undefined, 1_000)).rejects.toThrow(
      `elsewhere was not ready within 1 s (last check: POST http://127.0.0.1:${port}/dev/token (oscar's token for the gateway): connect ECONNREFUSED 127.0.0.1:${port})`,
    );
  });

  it('names a process that stopped while starting, with its exit, and passes on its one-line reason', async () => {
    const lines: string[] = [];
    const output: StackOutput = {
      line: (name, line) => lines.push(`${name}| ${line}`),
      note: (line) => lines.push(line),
    };
    const failing: StackProcess = {
      name: 'failing',
      entry: fixture('failing-service.ts'),
      env: {},
      listens: [],
      ready: { kind: 'http', url: `http://127.0.0.1:${await closedPort()}/health` },
      serves: '',
    };
    await expect(startStack([failing], { PATH: process.env.PATH }, output, undefined, 10_000)).rejects.toThrow(
      'failing stopped (exit code 1): failing-service cannot start: SOME_SETTING must be a number',
    );
    expect(lines).toContain('failing| failing-service cannot start: SOME_SETTING must be a number');
  });
});
