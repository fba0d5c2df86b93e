// `npm run start:pg`, the scaled topology as processes on one PostgreSQL: a webhook configured
// through one API process, telemetry ingested through the other, delivered by one of the two
// deliverers (the API processes deliver nothing themselves); two gateways behind HAProxy, through
// which the demo runs whole; Ctrl-C stops everything.
import { newStoreLocation } from '@platform/webhook-api/testing';
import { describe, expect, inject, it } from 'vitest';
import { startDemoReceiver } from '../src/demo/receiver.ts';
import { readings, sendTelemetry } from '../src/demo/device-simulator.ts';
import { personToken } from '../src/stack/platform-session.ts';
import { runNpm, stackEnvironment, takenPorts } from './stack-process.ts';

async function rest(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, authversion: 'V0.0.1', ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** The deliverer's count of delivered deliveries, from its Prometheus metrics (behind the stack's metrics token). */
async function deliveredBy(delivererUrl: string, metricsToken: string): Promise<number> {
  const answer = await fetch(`${delivererUrl}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
  if (!answer.ok) throw new Error(`GET ${delivererUrl}/metrics: ${answer.status}`);
  const metrics = await answer.text();
  return Number(/^webhook_deliveries_total\{outcome="delivered"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
}

describe('npm run start:pg', () => {
  it('runs two API processes and two deliverers on one PostgreSQL: configured through one, ingested through the other, delivered', async () => {
    const database = await newStoreLocation('PostgreSQL', inject('postgresUrl'));
    const stack = await stackEnvironment({ DATABASE_URL: database.postgresUrl ?? '' });
    const run = runNpm(['run', 'start:pg'], stack.env);
    try {
      await run.waitForLine('The stack is ready.', 90_000);
      const apiPort = Number(stack.env.WEBHOOK_API_PORT);
      const [firstApi, secondApi] = [apiPort, apiPort + 2].map((port) => `http://127.0.0.1:${port}`);
      const deliverers = [apiPort + 1, apiPort + 3].map((port) => `http://127.0.0.1:${port}`);
      const banner = run.output().slice(run.output().indexOf('The stack is ready.'));
      for (const url of [firstApi, secondApi, ...deliverers]) expect(banner).toContain(url ?? '');

      // First (its device's deliveries are its own): the demo, through HAProxy on MCP_PORT, reaches tools the tool service registered through it.
      expect(banner).toContain('haproxy');
      const replicaPort = Number(stack.env.MCP_REPLICA_PORT);
      for (const port of [replicaPort, replicaPort + 2]) expect(banner).toContain(`http://127.0.0.1:${port}/mcp`);
      const demo = runNpm(['run', 'demo'], stack.env);
      expect(await demo.exited, demo.output()).toBe(0);
      expect(demo.output()).toContain(`The telemetry demo, against ${stack.mcpUrl}`);
      expect(demo.output()).toContain('Demo complete: every step was seen.');

      const receiver = await startDemoReceiver({ port: 0, path: '/hook' });
      try {
        const { accessToken } = await personToken(stack.platformUrl, 'oscar');
        const config = await rest(secondApi ?? '', accessToken, 'POST', '/v2/webhooks?companyId=1', {
          name: 'start:pg',
          url: receiver.url,
          deliveryMode: 'Realtime',
        });
        const id = String(config.id);
        await rest(secondApi ?? '', accessToken, 'POST', `/v2/webhooks/${id}/devices/1001`);
        await rest(secondApi ?? '', accessToken, 'POST', `/v2/webhooks/${id}/devices/1001/routes`, { scopeLevel: 'Device', enabled: true });

        const delivered = async () =>
          (await Promise.all(deliverers.map((url) => deliveredBy(url, stack.env.WEBHOOK_METRICS_TOKEN ?? '')))).reduce((a, b) => a + b, 0);
        // The demo's deliveries came before.
        const before = await delivered();
        const device = { deviceId: 1001, gatewayId: 'gw-acme-01', connectionTag: 'bus' };
        const answer = await sendTelemetry(firstApi ?? '', stack.env.WEBHOOK_INGEST_TOKEN ?? '', readings(device, 'temperature', 4));
        expect(answer).toEqual({ accepted: 4, queued: 4 });
        expect(await receiver.waitFor(4, 15_000)).toBe(true);
        expect(receiver.received.map((d) => (d.body as { Metadata: { Company: string } }).Metadata.Company)).toEqual(['1', '1', '1', '1']);
        // Only the deliverers deliver here: theirs are all four.
        const after = await delivered();
        // ...which they show only to the holder of the metrics token the stack generated or was given.
        expect((await fetch(`${deliverers[0] ?? ''}/metrics`)).status).toBe(401);
        expect(after - before).toBe(4);
        expect(run.output()).toContain('"deliverer":"off"');
      } finally {
        await receiver.close();
      }
    } finally {
      run.interrupt();
      await run.waitForLine('start:pg     | stopped', 30_000);
    }
    expect(await takenPorts(stack.env)).toEqual([]);
    for (const secret of stack.secrets) expect(run.output()).not.toContain(secret);
  }, 150_000);
});
