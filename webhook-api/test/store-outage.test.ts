import { startedForTests } from '@platform/tool-sdk/testing';
import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { personToken, startPlatform } from '@platform/dev-platform/testing';
import { describe, expect, inject, it } from 'vitest';
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { apiClient, startWebhookApi, type RunningApi } from './harness.ts';
import { openPostgresDatabase } from '../src/database.ts';

const platform = startedForTests(() => startPlatform());

/** A loopback TCP proxy to the test cluster that the test can cut (close) or stall (stop forwarding). */
async function startProxy(target: URL) {
  const sockets = new Set<Socket>();
  let stalled = false;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    for (const socket of [client, upstream]) {
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk: Buffer) => {
      if (!stalled) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!stalled) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const url = new URL(target.href);
  url.host = `127.0.0.1:${address.port}`;
  return {
    url: url.href,
    async cut() {
      server.close();
      for (const socket of sockets) socket.destroy();
      await once(server, 'close');
    },
    stall() {
      stalled = true;
    },
    close() {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe('a PostgreSQL outage', () => {
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let api: RunningApi;
  let oscar: ReturnType<typeof apiClient>;

  async function start() {
    proxy = await startProxy(new URL(await freshDatabase(inject('postgresUrl'))));
    api = await startWebhookApi({
      location: {
        backend: 'PostgreSQL',
        open: () =>
          openPostgresDatabase(proxy.url, { maxConnections: 2, connectionTimeoutMs: 1_000, queryTimeoutMs: 1_000, onIdleConnectionError: () => undefined }),
      },
      platformUrl: platform().issuer,
    });
    oscar = apiClient(api.url, `Bearer ${await personToken(platform().issuer, 'oscar')}`);
  }
  async function stop() {
    proxy.close();
    await api.close();
  }

  it('answers 503 STORE_UNAVAILABLE with the API’s error body once the database is cut off', async () => {
    await start();
    try {
      const created = await oscar('POST', '/v2/webhooks?companyId=1', { name: 'x', url: 'https://receiver.example/h', deliveryMode: 'Batch' });
      expect(created.status).toBe(201);
      await proxy.cut();
      const started = Date.now();
      for (const [method, path] of [
        ['GET', '/v2/webhooks?companyId=1'],
        ['GET', `/v2/webhooks/${(created.body as { id: string }).id}`],
        ['POST', '/v2/webhooks?companyId=1'],
      ] as const) {
        const result = await oscar(method, path, method === 'POST' ? { name: 'y', url: 'https://receiver.example/h', deliveryMode: 'Batch' } : undefined);
        expect(result, `${method} ${path}`).toEqual({
          status: 503,
          body: { error: { code: 'STORE_UNAVAILABLE', message: 'The webhook store could not be reached; try again.' } },
        });
      }
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(api.logs.join('')).toContain('STORE_UNAVAILABLE');
    } finally {
      await stop();
    }
  });

  it('answers 503 within seconds, not a hang, when the database stops answering', async () => {
    await start();
    try {
      expect((await oscar('GET', '/v2/webhooks?companyId=1')).status).toBe(200);
      proxy.stall();
      const started = Date.now();
      const result = await oscar('GET', '/v2/webhooks?companyId=1');
      expect(result).toMatchObject({ status: 503, body: { error: { code: 'STORE_UNAVAILABLE' } } });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await stop();
    }
  });
});
