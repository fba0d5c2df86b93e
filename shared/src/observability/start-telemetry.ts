// Starts a service's tracing when its settings configure an exporter: a tracer provider with the
// service's resource, a batch of spans sent over OTLP/HTTP (protobuf or JSON), the W3C trace
// context propagator and an AsyncLocalStorage context, all registered with the API. Without an
// exporter nothing is registered and the API's no-op tracer stays: spans cost next to nothing.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { TelemetrySettings } from './telemetry-settings.ts';

export interface Telemetry {
  readonly enabled: boolean;
  /** Sends the spans still batched; a stopping service calls it before it exits. */
  shutdown(): Promise<void>;
}

const off: Telemetry = Object.freeze({ enabled: false, shutdown: () => Promise.resolve() });

function samplerOf(settings: TelemetrySettings): Sampler {
  const ratio = new TraceIdRatioBasedSampler(settings.samplerRatio);
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

export interface StartTelemetryOptions {
  /** Where spans go instead of OTLP: the bench's in-process exporter. */
  readonly exporter?: SpanExporter;
  /** Delay between two exports of the batch, in milliseconds; default 1 000. */
  readonly exportDelayMs?: number;
}

/** Starts tracing as `settings` say, once per process; `enabled: false` when no exporter is configured. */
export function startTelemetry(settings: TelemetrySettings, options: StartTelemetryOptions = {}): Telemetry {
  if (!settings.enabled && !options.exporter) return off;
  const exporter =
    options.exporter ??
    (settings.protocol === 'http/json'
      ? new JsonTraceExporter({ url: settings.tracesUrl, headers: { ...settings.headers } })
      : new ProtobufTraceExporter({ url: settings.tracesUrl, headers: { ...settings.headers } }));
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ ...settings.resourceAttributes, 'service.name': settings.serviceName }),
    sampler: samplerOf(settings),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: options.exportDelayMs ?? 1_000 })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    enabled: true,
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
