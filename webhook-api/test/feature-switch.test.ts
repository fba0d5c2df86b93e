// The operator's switch SPEC names ("the feature may be disabled on some environments"):
// WEBHOOK_FEATURE_ENABLED=false. The API answers every /v2/webhooks call with FEATURE_DISABLED, ingest
// takes points in and queues nothing, and a deliverer sends nothing; on SQLite and PostgreSQL, with
// configurations and queued deliveries made while it was on.
import { startPlatform } from '@platform/dev-platform/testing';
import { closedPort, startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, inject, it } from 'vitest';
import { newStoreLocation, startWebhookApi, telemetryPoint, testKeyRing, type Backend, type StoreLocation } from './harness.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { serviceEnv, startService, databaseEnvOf } from './service-process.ts';

const platform = startedForTests(() => startPlatform());
const boiler = 1001;
const refusal = {
  error: { code: 'FEATURE_DISABLED', message: 'The webhook feature is not enabled in this environment; no webhook can be configured or delivered here.' },
};

/** A configuration of company 1 routing the boiler to `receiver`, made while the feature is on; its id. */
async function configured(location: StoreLocation, receiver: Receiver): Promise<string> {
  const api = await startWebhookApi({ location, platformUrl: platform().issuer });
  try {
    const oscar = await api.clientAs('oscar');
    const created = await oscar('POST', '/v2/webhooks?companyId=1', { name: 'switch', url: `${receiver.url}/switch`, deliveryMode: 'Realtime' });
    const { id } = created.body as { id: string };
    await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}`);
    await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}/routes`, { scopeLevel: 'Device' });
    expect((await api.ingest([telemetryPoint(boiler), telemetryPoint(boiler)])).body).toEqual({ accepted: 2, queued: 2 });
    return id;
  } finally {
    await api.close();
  }
}

describe.each<Backend>(['SQLite', 'PostgreSQL'])('the webhook feature switched off on %s', (backend) => {
  it('refuses every /v2/webhooks call with one clear error, whoever calls; ingest queues nothing; the OpenAPI document is still served', async () => {
    const location = await newStoreLocation(backend, inject('postgresUrl'));
    const receiver = await startReceiver();
    const id = await configured(location, receiver);
    const api = await startWebhookApi({ location, platformUrl: platform().issuer, featureEnabled: false, deliverer: {} });
    try {
      expect(api.delivery).toBeUndefined();
      const oscar = await api.clientAs('oscar');
      const calls: [string, string, unknown?][] = [
        ['GET', '/v2/webhooks?companyId=1'],
        ['POST', '/v2/webhooks?companyId=1', { name: 'x', url: 'https://receiver.example/x', deliveryMode: 'Realtime' }],
        ['GET', `/v2/webhooks/${id}`],
        ['PUT', `/v2/webhooks/${id}`, { name: 'x', url: 'https://receiver.example/x', deliveryMode: 'Realtime' }],
        ['DELETE', `/v2/webhooks/${id}`],
        ['POST', `/v2/webhooks/${id}/devices/1002`],
        ['GET', `/v2/webhooks/${id}/devices/${boiler}/routes`],
        ['GET', `/v2/webhooks/${id}/deliveries`],
        ['POST', `/v2/webhooks/${id}/test`],
        ['GET', `/v2/webhooks/${id}/signing-secret`],
        ['GET', '/v2/webhooks/no-such-thing'],
      ];
      for (const [method, path, body] of calls) {
        expect(await oscar(method, path, body), `${method} ${path}`).toEqual({ status: 403, body: refusal });
      }
      // Before the caller is asked for: no token, no AuthVersion, the same answer.
      const anonymous = await fetch(`${api.url}/v2/webhooks?companyId=1`);
      expect(anonymous.status).toBe(403);
      expect(await anonymous.json()).toEqual(refusal);
      expect((await fetch(`${api.url}/v2/openapi.json`)).status).toBe(200);

      expect(await api.ingest([telemetryPoint(boiler)])).toEqual({ status: 202, body: { accepted: 1, queued: 0 } });
      expect((await api.ingest([{ deviceId: 'x' }])).status).toBe(400);
      const counted = await api.metrics.registry.getSingleMetricAsString('webhook_points_not_queued_total');
      expect(counted).toContain('webhook_points_not_queued_total{reason="feature_disabled"} 1');
      // The two queued while the feature was on wait; nothing was added, nothing sent.
      expect((await api.store.deliveries.stats()).queued).toBe(2);
      expect(await api.store.countConfigs()).toBe(1);
      expect(receiver.received).toEqual([]);
    } finally {
      await api.close();
      await receiver.close();
    }
  });

  it('starts a deliverer that sends nothing and says so on /health; switched on again, it delivers what waited', { timeout: 60_000 }, async () => {
    const location = await newStoreLocation(backend, inject('postgresUrl'));
    const receiver = await startReceiver();
    await configured(location, receiver);
    const database = databaseEnvOf(location);
    const variables = async (enabled: boolean) => {
      const port = await closedPort();
      const env = serviceEnv(database, {
        WEBHOOK_DELIVERER_PORT: String(port),
        WEBHOOK_METRICS_TOKEN: 'test-metrics-token-0123456789',
        WEBHOOK_ENCRYPTION_KEY: testKeyRing.map(({ id, key }) => `${id}:${key.toString('base64')}`).join(','),
        WEBHOOK_FEATURE_ENABLED: String(enabled),
      });
      return { port, env };
    };
    const off = await variables(false);
    const idle = startService('deliverer-main.ts', off.env);
    try {
      await idle.ready(off.port);
      expect(await (await fetch(`http://127.0.0.1:${off.port}/health`)).json()).toEqual({
        status: 'ok',
        delivering: false,
        reason: 'the webhook feature is disabled (WEBHOOK_FEATURE_ENABLED=false)',
      });
    } finally {
      await idle.stop();
    }
    expect(receiver.received).toEqual([]);
    const on = await variables(true);
    const working = startService('deliverer-main.ts', on.env);
    try {
      await working.ready(on.port);
      await receiver.waitFor(2);
    } finally {
      await working.stop();
      await receiver.close();
    }
  });
});
