// The one /metrics handler: refused without the bearer token, served with it (or to anyone when
// opened on purpose), a collection failure told apart as an outage (503) or a fault (500).
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { scrape } from '@platform/devtools/scrape';
import { Gauge, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetricsHandler, type MetricsAccess, type MetricsOutage } from './metrics-endpoint.ts';

const token = 'scrape-token-16-chars';
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

class StoreDown extends Error {}

/** A registry whose one gauge is collected by `collect` (throwing makes the collection fail). */
async function serve(access: MetricsAccess, collect: () => number = () => 3, outage?: MetricsOutage): Promise<string> {
  const registry = new Registry();
  new Gauge({
    name: 'test_queue_depth',
    help: 'Depth.',
    registers: [registry],
    collect() {
      this.set(collect());
    },
  });
  const server = createServer(createMetricsHandler(registry, access, outage && { outage }));
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

describe('createMetricsHandler', () => {
  it('refuses without the token, with another, or with it twice: 401 with WWW-Authenticate: Bearer and no metric', async () => {
    const url = await serve({ token });
    for (const authorization of [[], [`Bearer ${token}x`], [token], [`Basic ${token}`], [`Bearer ${token}`, `Bearer ${token}`]]) {
      const answer = await scrape(url, authorization);
      expect(answer.status, authorization.join(' | ')).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Bearer');
      expect(answer.body).not.toContain('test_queue_depth');
    }
  });

  it('serves the text format with the token', async () => {
    const answer = await scrape(await serve({ token }), [`Bearer ${token}`]);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(answer.body).toMatch(/^test_queue_depth 3$/m);
  });

  it('serves anyone when opened to the public', async () => {
    const answer = await scrape(await serve('public'));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatch(/^test_queue_depth 3$/m);
  });

  it('answers an outage of what the metrics read with 503 and Retry-After, after asking for the token', async () => {
    const outage: MetricsOutage = { is: (error) => error instanceof StoreDown, message: 'The store could not be reached; try again.\n', retryAfterSeconds: 7 };
    const url = await serve(
      { token },
      () => {
        throw new StoreDown('private detail');
      },
      outage,
    );
    expect((await scrape(url)).status).toBe(401);
    expect(await scrape(url, [`Bearer ${token}`])).toMatchObject({
      status: 503,
      headers: { 'retry-after': '7' },
      body: 'The store could not be reached; try again.\n',
    });
  });

  it('answers any other collection failure with 500 and a message that does not repeat it', async () => {
    const outage: MetricsOutage = { is: (error) => error instanceof StoreDown, message: 'unused' };
    const url = await serve(
      'public',
      () => {
        throw new Error('private detail');
      },
      outage,
    );
    expect(await scrape(url)).toMatchObject({ status: 500, body: 'The metrics could not be collected.\n' });
  });

  it('refuses an empty token when it is built', () => {
    expect(() => createMetricsHandler(new Registry(), { token: '' })).toThrow(/token must not be empty/);
  });
});
