import type * as Crypto from 'node:crypto';
import { scrape } from '@platform/devtools/scrape';
import express from 'express';
import { listen, type Listening } from '@platform/tool-sdk/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDeliveryMetrics } from '../delivery/metrics.ts';
import { metricsHandler } from './metrics.routes.ts';
import type { QueueStats } from '../queue/delivery-queue.ts';
import { StoreUnavailableError } from '../store/store-unavailable.ts';

// The real timingSafeEqual, watched: the comparison must go through it, over equal-length digests.
const timingSafeEqual = vi.hoisted(() => ({ calls: [] as [number, number][] }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof Crypto>();
  return {
    ...crypto,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      timingSafeEqual.calls.push([a.byteLength, b.byteLength]);
      return crypto.timingSafeEqual(a, b);
    },
  };
});

const token = 'metrics-scrape-token-0123456789';
const idle: QueueStats = { queued: 3, gathering: 0, oldestAcceptedAt: undefined };

const servers: Listening[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  timingSafeEqual.calls.length = 0;
});

async function serve(options: { token?: string; stats?: () => Promise<QueueStats> } = {}) {
  const metrics = createDeliveryMetrics({ queue: { stats: options.stats ?? (() => Promise.resolve(idle)) } });
  const app = express();
  app.get('/metrics', metricsHandler({ metrics, access: options.token === undefined ? 'public' : { token: options.token } }));
  const server = await listen(app);
  servers.push(server);
  return `${server.url}/metrics`;
}

describe('GET /metrics', () => {
  it('answers the metrics in the Prometheus text format, without a token when opened to the public', async () => {
    const url = await serve();
    const answer = await scrape(url);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(answer.body).toMatch(/^webhook_queue_depth 3$/m);
    expect(answer.body).toContain('# TYPE webhook_attempt_duration_seconds histogram');
  });

  it('asks for the configured bearer token: 401 with WWW-Authenticate: Bearer without it or with another', async () => {
    const url = await serve({ token });
    for (const authorization of [
      [],
      [`Bearer ${token}x`],
      [`Bearer ${token.slice(0, -1)}`],
      ['Bearer x'],
      [token],
      [`Basic ${token}`],
      [`Bearer ${token}`, `Bearer ${token}`],
    ]) {
      const answer = await scrape(url, authorization);
      expect(answer.status, authorization.join(' | ')).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Bearer');
      expect(answer.body).not.toContain('webhook_');
    }
    const allowed = await scrape(url, [`Bearer ${token}`]);
    expect(allowed.status).toBe(200);
    expect(allowed.body).toContain('webhook_queue_depth');
  });

  it('compares the token in constant time, over digests of one length whatever is sent', async () => {
    const url = await serve({ token });
    await scrape(url, ['Bearer x']);
    await scrape(url, [`Bearer ${token}${'y'.repeat(500)}`]);
    await scrape(url, [`Bearer ${token}`]);
    expect(timingSafeEqual.calls).toEqual([
      [32, 32],
      [32, 32],
      [32, 32],
    ]);
  });

  it('answers 503, not 500, when the store cannot be read for the queue gauges', async () => {
    const url = await serve({ token, stats: () => Promise.reject(new StoreUnavailableError('the SQLite database is unavailable')) });
    const answer = await scrape(url, [`Bearer ${token}`]);
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.body).toBe('The webhook store could not be reached; try again.\n');
    // The token is still asked for first.
    expect((await scrape(url)).status).toBe(401);
  });

  it('leaves any other failure to the error handling (500)', async () => {
    const url = await serve({ stats: () => Promise.reject(new Error('a bug')) });
    expect((await scrape(url)).status).toBe(500);
  });

  it('refuses an empty token when it is built', () => {
    const metrics = createDeliveryMetrics({ queue: { stats: () => Promise.resolve(idle) } });
    expect(() => metricsHandler({ metrics, access: { token: '' } })).toThrow(/token must not be empty/);
  });
});
