// Tracing in the bench's servers process, switched on and off between rounds: on, every span is
// sampled (always_on) and handed to a batch processor whose exporter only counts them, so the cost
// measured is the spans' own (making, context, propagation, batching), not a collector's.
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { loadTelemetrySettings, startTelemetry, type Telemetry } from '@platform/tool-sdk/observability';

export interface TracingFigures {
  /** Spans exported since the process started. */
  readonly spans: number;
}

export function createTracingSwitch() {
  let spans = 0;
  let telemetry: Telemetry | undefined;
  const exporter: SpanExporter = {
    export(batch: ReadableSpan[], done) {
      spans += batch.length;
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: () => Promise.resolve(),
  };
  return {
    async set(on: boolean): Promise<TracingFigures> {
      await telemetry?.shutdown();
      telemetry = on
        ? startTelemetry(loadTelemetrySettings({ OTEL_TRACES_SAMPLER: 'always_on' }, 'gateway-bench'), { exporter, exportDelayMs: 200 })
        : undefined;
      return { spans };
    },
  };
}
