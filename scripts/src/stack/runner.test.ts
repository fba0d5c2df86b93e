import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { closeServer } from '@platform/tool-sdk/internal';
import { closedPort } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { startStack, unusablePorts, type StackOutput } from './runner.ts';
import { stackProcesses, type StackProcess } from './processes.ts';
import { repoRoot } from '../repo-root.ts';

const seed = { person: 'oscar', secretNames: [] };

/** Loopback ports held by servers of the test's own until `release`. */
async function heldPorts(count: number): Promise<{ ports: number[]; release: () => Promise<void> }> {
  const servers = await Promise.all(
    Array.from({ length: count }, async () => {
      const server = createServer();
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      return server;
    }),
  );
  return {
    ports: servers.map((server) => (server.address() as AddressInfo).port),
    release: () => Promise.all(servers.map((server) => closeServer(server))).then(() => undefined),
  };
}

describe('the port check before anything starts', () => {
  it('refuses two variables that name the same port, naming both', async () => {
    const processes = stackProcesses({ MCP_PORT: '39001', REGISTRY_ADDRESS: '127.0.0.1:39001' }, {}, 'embedded', seed);
    expect(await unusablePorts(processes)).toBe('MCP_PORT and REGISTRY_ADDRESS name the same port, 39001; set one of them to another port.');
  });

  it('names every taken port, and every port named twice, in one line', async () => {
    const held = await heldPorts(5);
    try {
      const [platform, ai, mcp, registry, api] = held.ports.map(String);
      const callback = await closedPort();
      const processes = stackProcesses(
        {
          PLATFORM_PORT: platform,
          PLATFORM_AI_PORT: ai,
          MCP_PORT: mcp,
          REGISTRY_ADDRESS: `127.0.0.1:${registry ?? ''}`,
          WEBHOOK_API_PORT: api,
          CALLBACK_ADDRESS: `127.0.0.1:${callback}`,
          DEMO_RECEIVER_PORT: String(callback),
        },
        {},
        'embedded',
        seed,
      );
      expect(await unusablePorts(processes)).toBe(
        [
          `5 ports cannot be used, so nothing was started: port ${platform ?? ''} on 127.0.0.1 is already in use (PLATFORM_PORT, dev-platform)`,
          `port ${ai ?? ''} on 127.0.0.1 is already in use (PLATFORM_AI_PORT, dev-platform)`,
          `port ${api ?? ''} on 127.0.0.1 is already in use (WEBHOOK_API_PORT, webhook-api)`,
          `port ${mcp ?? ''} on 127.0.0.1 is already in use (MCP_PORT, mcp-server)`,
          `port ${registry ?? ''} on 127.0.0.1 is already in use (REGISTRY_ADDRESS, mcp-server); set each variable named to another port.`,
        ].join('; '),
      );
      const twice = stackProcesses({ PLATFORM_PORT: platform, MCP_PORT: '39001', REGISTRY_ADDRESS: '127.0.0.1:39001' }, {}, 'embedded', seed);
      expect(await unusablePorts(twice)).toMatch(
        new RegExp(
          `^2 ports cannot be used, so nothing was started: MCP_PORT and REGISTRY_ADDRESS name the same port, 39001; port ${platform ?? ''} on 127\\.0\\.0\\.1 is already in use \\(PLATFORM_PORT, dev-platform\\); set each variable named to another port\\.$`,
        ),
      );
    } finally {
      await held.release();
    }
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
