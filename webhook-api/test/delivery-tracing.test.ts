// The delivery pipeline's spans, recorded in this process by an exporter that keeps them: the
// ingest request's database spans on PostgreSQL as on SQLite (the queue's statements included,
// named by their operation, never with their values).
import { ExportResultCode } from '@opentelemetry/core';
import { startPlatform } from '@platform/dev-platform/testing';
import { loadTelemetrySettings, startTelemetry, type StartTelemetryOptions } from '@platform/tool-sdk/observability';
import { startedForTests, until } from '@platform/tool-sdk/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startReceiver, type Receiver } from './receiver.ts';
import { newStoreLocation, startWebhookApi, telemetryPoint, type ApiClient, type Backend, type RunningApi } from './harness.ts';

type Exporter = NonNullable<StartTelemetryOptions['exporter']>;
type ExportedSpan = Parameters<Exporter['export']>[0][number];

const exported: ExportedSpan[] = [];
const exporter: Exporter = {
  export(spans, done) {
    exported.push(...spans);
    done({ code: ExportResultCode.SUCCESS });
  },
  shutdown: () => Promise.resolve(),
};
const telemetry = startTelemetry(loadTelemetrySettings({ OTEL_TRACES_SAMPLER: 'always_on' }, 'webhook-api'), { exporter, exportDelayMs: 10 });
afterAll(() => telemetry.shutdown());

const platform = startedForTests(() => startPlatform());
/** A device of company 1 in the dev platform's seed. */
const boiler = 1001;

const ingestSpans = () => exported.filter((span) => span.name === 'POST /internal/telemetry');
const childrenOf = (parent: ExportedSpan) => exported.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);
const descendantsOf = (parent: ExportedSpan): ExportedSpan[] => childrenOf(parent).flatMap((child) => [child, ...descendantsOf(child)]);

describe.each<Backend>(['SQLite', 'PostgreSQL'])('delivery spans on %s', (backend) => {
  let api: RunningApi;
  let oscar: ApiClient;
  let receiver: Receiver;

  beforeAll(async () => {
    api = await startWebhookApi({ location: await newStoreLocation(backend, inject('postgresUrl')), platformUrl: platform().issuer, deliverer: {} });
    oscar = await api.clientAs('oscar');
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await api.close();
    await receiver.close();
  });

  async function hook(path: string, deliveryMode: 'Realtime' | 'Batch'): Promise<string> {
    const created = await oscar('POST', '/v2/webhooks?companyId=1', { name: path, url: `${receiver.url}/${path}`, deliveryMode });
    const { id } = created.body as { id: string };
    expect((await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}`)).status).toBe(201);
    expect((await oscar('POST', `/v2/webhooks/${id}/devices/${boiler}/routes`, { enabled: true, scopeLevel: 'Device' })).status).toBe(201);
    return id;
  }

  it('gives the ingest request a database span per statement of the queue, named by its operation, without its values', async () => {
    const id = await hook(`spans-${backend}`, 'Realtime');
    const before = ingestSpans().length;
    const marker = `marker-${backend}-${Date.now()}`;
    expect((await api.ingest([telemetryPoint(boiler, { tags: { marker } })])).status).toBe(202);
    await until(() => ingestSpans().length > before, 'the ingest span exported');
    const ingest = ingestSpans().at(-1) as ExportedSpan;
    const system = backend === 'SQLite' ? 'sqlite' : 'postgresql';
    await until(() => descendantsOf(ingest).some((span) => span.attributes['db.operation.name'] === 'INSERT'), 'the insert span exported');
    const db = descendantsOf(ingest).filter((span) => span.attributes['db.system.name'] !== undefined);
    // The queue's statements, in the span of their transaction.
    const transaction = db.find((span) => span.name === 'transaction');
    expect(transaction).toBeDefined();
    expect(childrenOf(transaction as ExportedSpan).map((span) => span.attributes['db.operation.name'])).toEqual(expect.arrayContaining(['SELECT', 'INSERT']));
    for (const span of db) {
      expect(span.attributes['db.system.name']).toBe(system);
      expect(Object.keys(span.attributes).sort()).toEqual(['db.operation.name', 'db.system.name']);
    }
    expect(JSON.stringify(exported.map((span) => span.attributes))).not.toContain(marker);
    expect((await oscar('DELETE', `/v2/webhooks/${id}`)).status).toBe(200);
  });
});
