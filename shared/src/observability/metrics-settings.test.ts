import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetricsHandler, withMetrics } from './metrics-endpoint.ts';
import { loadMetricsSettings, loadToolMetricsSettings, metricsAccessProblems } from './metrics-settings.ts';

describe('metrics settings', () => {
  it('serves /metrics only when a token or public access was chosen, never both', () => {
    expect(loadMetricsSettings({}, 'MCP_').access).toBeUndefined();
    expect(loadMetricsSettings({ MCP_METRICS_TOKEN: 'a-token-of-16-chars' }, 'MCP_').access).toEqual({ token: 'a-token-of-16-chars' });
    expect(loadMetricsSettings({ MCP_METRICS_PUBLIC: 'true' }, 'MCP_').access).toBe('public');
    expect(() => loadMetricsSettings({ MCP_METRICS_TOKEN: 'a-token-of-16-chars', MCP_METRICS_PUBLIC: 'true' }, 'MCP_')).toThrow(
      /MCP_METRICS_PUBLIC must not be true/,
    );
    expect(() => loadMetricsSettings({ MCP_METRICS_TOKEN: 'short' }, 'MCP_')).toThrow(/MCP_METRICS_TOKEN must be at least 16 characters/);
  });

  it('asks a tool service with METRICS_PORT for a token, without echoing it', () => {
    expect(loadToolMetricsSettings({})).toMatchObject({ port: undefined, access: undefined });
    expect(() => loadToolMetricsSettings({ METRICS_PORT: '9464' })).toThrow(/METRICS_TOKEN is required when METRICS_PORT is set/);
    expect(loadToolMetricsSettings({ METRICS_PORT: '9464', METRICS_TOKEN: 'tool-token-16-chars' })).toMatchObject({ port: 9464, host: '127.0.0.1' });
  });
});

describe('metricsAccessProblems', () => {
  const problems = (values: Record<string, unknown>, required?: { when?: string }) => [...metricsAccessProblems('WEBHOOK_', values, required)];

  it('names neither chosen only where /metrics is required, in one line naming both variables', () => {
    expect(problems({ WEBHOOK_METRICS_PUBLIC: false })).toEqual([]);
    const [only, ...more] = problems({ WEBHOOK_METRICS_PUBLIC: false }, {});
    expect(more).toEqual([]);
    expect(only?.[0]).toBe('WEBHOOK_METRICS_TOKEN');
    expect(only?.[1]).toMatch(/^is required: .*WEBHOOK_METRICS_PUBLIC=true/);
    expect(problems({ WEBHOOK_METRICS_PUBLIC: false }, { when: 'when X is set' })[0]?.[1]).toMatch(/^is required when X is set: /);
  });

  it('takes a token or public access where /metrics is required, and refuses both', () => {
    expect(problems({ WEBHOOK_METRICS_TOKEN: 'a-token-of-16-chars', WEBHOOK_METRICS_PUBLIC: false }, {})).toEqual([]);
    expect(problems({ WEBHOOK_METRICS_PUBLIC: true }, {})).toEqual([]);
    expect(problems({ WEBHOOK_METRICS_TOKEN: 'a-token-of-16-chars', WEBHOOK_METRICS_PUBLIC: true })).toEqual([
      ['WEBHOOK_METRICS_PUBLIC', 'must not be true when WEBHOOK_METRICS_TOKEN is set: choose one'],
    ]);
  });
});

describe('GET /metrics', () => {
  it('answers 401 without the bearer token, the text format with it, and hands other requests to the app', async () => {
    const registry = new Registry();
    new Counter({ name: 'test_things_total', help: 'Things.', registers: [registry] }).inc();
    const handler = createMetricsHandler(registry, { token: 'scrape-token-16-chars' });
    const server = createServer(withMetrics((_req, res) => res.writeHead(204).end(), handler));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer wrong-token-16-chars' } })).status).toBe(401);
      const answer = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer scrape-token-16-chars' } });
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('test_things_total 1');
      expect((await fetch(`${base}/mcp`)).status).toBe(204);
    } finally {
      server.close();
    }
  });
});
