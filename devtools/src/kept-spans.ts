// An OpenTelemetry span exporter for tests that keeps every span it is given, and keeps them after
// its provider shut down (the SDK's InMemorySpanExporter empties itself on shutdown). Structural,
// so devtools needs no OpenTelemetry package of its own.

/** `ExportResultCode.SUCCESS` of @opentelemetry/core. */
const success = 0;

export interface KeptSpans<Span> {
  /** Every span exported so far, in the order they came. */
  readonly spans: Span[];
  /** The exporter to give the provider (`startTelemetry`'s `exporter`). */
  readonly exporter: {
    export(batch: Span[], done: (result: { code: typeof success }) => void): void;
    shutdown(): Promise<void>;
  };
}

export function keptSpans<Span>(): KeptSpans<Span> {
  const spans: Span[] = [];
  return {
    spans,
    exporter: {
      export(batch, done) {
        spans.push(...batch);
        done({ code: success });
      },
      shutdown: () => Promise.resolve(),
    },
  };
}
