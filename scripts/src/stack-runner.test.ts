import { join } from 'node:path';
import { closedPort } from '@platform/shared/testing';
import { describe, expect, it } from 'vitest';
import { startStack, takenPort, type StackOutput } from './stack-runner.ts';
import { repoRoot, stackProcesses, type StackProcess } from './stack.ts';

const seed = { person: 'oscar', secretNames: [] };

describe('the port check before anything starts', () => {
  it('refuses two variables that name the same port, naming both', async () => {
    const processes = stackProcesses({ MCP_PORT: '39001', REGISTRY_ADDRESS: '127.0.0.1:39001' }, {}, 'embedded', seed);
    expect(await takenPort(processes)).toBe('MCP_PORT and REGISTRY_ADDRESS name the same port, 39001; set one of them to another port.');
  });
});

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
      /^silent was not ready within 1\.5 s \(last check: no answer within \d+ ms\)$/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
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
    await expect(startStack([failing], { PATH: process.env.PATH }, output, undefined, 10_000)).rejects.toThrow('failing stopped (exit code 1)');
    expect(lines).toContain('failing| failing-service cannot start: SOME_SETTING must be a number');
  });
});
