import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from '@platform/tool-sdk/internal';
import { closedPort } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { unusablePorts } from './runner.ts';
import { stackProcesses } from './processes.ts';

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
      // Every other port the stack binds named too: by default the tool service's metrics take the
      // port after its callback's, which another process on the machine may hold.
      let metrics = await closedPort();
      while (metrics === callback) metrics = await closedPort();
      const processes = stackProcesses(
        {
          PLATFORM_PORT: platform,
          PLATFORM_AI_PORT: ai,
          MCP_PORT: mcp,
          REGISTRY_ADDRESS: `127.0.0.1:${registry ?? ''}`,
          WEBHOOK_API_PORT: api,
          CALLBACK_ADDRESS: `127.0.0.1:${callback}`,
          DEMO_RECEIVER_PORT: String(callback),
          METRICS_PORT: String(metrics),
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
