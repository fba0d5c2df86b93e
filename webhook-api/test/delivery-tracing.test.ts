// The delivery pipeline's spans, recorded in this process by an exporter that keeps them: the
// ingest request's database spans on PostgreSQL as on SQLite (the queue's statements included,
// named by their operation, never with their values), and a Batch attempt linked to each ingest
// whose points it carries.
import { startPlatform } from '@platform/dev-platform/testing';
import { keptSpans } from '@platform/devtools/kept-spans';
import { loadTelemetrySettings, startTelemetry, type StartTelemetryOptions } from '@platform/tool-sdk/observability';
import { startedForTests, until } from '@platform/tool-sdk/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startReceiver, type Receiver } from './receiver.ts';
import { createHook, newStoreLocation, startWebhookApi, telemetryPoint, type ApiClient, type Backend, type RunningApi } from './harness.ts';

type Exporter = NonNullable<StartTelemetryOptions['exporter']>;
type ExportedSpan = Parameters<Exporter['export']>[0][number];

const { spans: exported, exporter } = keptSpans<ExportedSpan>();
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
    const location = await newStoreLocation(backend, inject('postgresUrl'));
    // A batch goes when it holds 6 points, never on a timer: the test decides which ingests it carries.
    const open = () => location.open({ batch: { maxPoints: 6, lingerMs: 3_600_000 } });
    api = await startWebhookApi({ location: { ...location, open }, platformUrl: platform().issuer, deliverer: {} });
    oscar = await api.clientAs('oscar');
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await api.close();
    await receiver.close();
  });

  const hook = (path: string, deliveryMode: 'Realtime' | 'Batch') => createHook(oscar, receiver.url, path, { fields: { deliveryMode }, devices: [boiler] });

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

  it('links a Batch attempt to each ingest whose points it carries, once each', async () => {
    const id = await hook(`batch-links-${backend}`, 'Batch');
    const before = ingestSpans().length;
    // Three ingests of two points each fill one batch, which is then sent.
    for (let i = 0; i < 3; i++) expect((await api.ingest([telemetryPoint(boiler), telemetryPoint(boiler)])).status).toBe(202);
    await until(() => receiver.received.some((r) => r.path === `/batch-links-${backend}`), 'the batch delivered');
    await until(
      () =>
        ingestSpans().length >= before + 3 && exported.some((span) => span.name === 'webhook delivery' && span.attributes['platform.webhook_config.id'] === id),
      'the spans exported',
    );
    const ingests = ingestSpans().slice(before);
    const attempt = exported.find((span) => span.name === 'webhook delivery' && span.attributes['platform.webhook_config.id'] === id) as ExportedSpan;
    expect(attempt.attributes).toMatchObject({ 'platform.delivery.mode': 'Batch', 'platform.delivery.points': 6, 'platform.outcome': 'delivered' });
    expect(attempt.links.map((link) => link.context.spanId).sort()).toEqual(ingests.map((span) => span.spanContext().spanId).sort());
    expect(attempt.links.map((link) => link.context.traceId).sort()).toEqual(ingests.map((span) => span.spanContext().traceId).sort());
    expect(attempt.links.every((link) => link.attributes?.['platform.link'] === 'ingest')).toBe(true);
    expect(attempt.spanContext().traceId).not.toBe(ingests[0]?.spanContext().traceId);
    expect((await oscar('DELETE', `/v2/webhooks/${id}`)).status).toBe(200);
  });
});
