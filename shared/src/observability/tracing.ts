// The spans every service writes, through the OpenTelemetry API only (a no-op until a service
// starts telemetry): a helper that runs work in an active span and records how it ended, and the
// W3C trace context carried in HTTP headers and gRPC metadata. Attribute names follow the
// semantic conventions; a span never carries a token, a secret or a tool's arguments.
import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type TextMapGetter,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

export { SpanKind, SpanStatusCode, context as traceContext, trace, type Attributes, type Context, type Link, type Span, type SpanContext };

const tracerName = '@platform/tool-sdk';

// The API's own no-op provider: what its global proxy hands spans to while no SDK is registered.
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the proxy is how the API tells "no provider yet"; nothing else exposes its no-op
const noopProvider = new ProxyTracerProvider().getDelegate();
const noopTracer = noopProvider.getTracer(tracerName);
/** What `work` is given while nothing records: one span for every call, as a non-recording span holds no state. */
const notRecording = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
let registered: { readonly provider: TracerProvider; readonly tracer: Tracer } | undefined;

/**
 * The registered provider's tracer, asked of it once per provider (the API's getTracer builds a key
 * and asks the provider on every call), or undefined while no provider is registered.
 */
function liveTracer(): Tracer | undefined {
  const global = trace.getTracerProvider();
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- see noopProvider
  const provider = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
  if (provider === noopProvider) return undefined;
  if (registered?.provider !== provider) registered = { provider, tracer: provider.getTracer(tracerName) };
  return registered.tracer;
}

/** The tracer of this code base: no-op until startTelemetry registered a provider. */
export const tracer = (): Tracer => liveTracer() ?? noopTracer;

export interface SpanOptions {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  readonly links?: Link[];
  /** The parent; default the active context. */
  readonly parent?: Context;
}

/** Marks the span failed with the error's type only: an error message may quote what it was given. */
export function recordFailure(span: Span, error: unknown): void {
  const type = error instanceof Error ? error.name : typeof error;
  span.setAttribute('error.type', (error as { code?: unknown } | null)?.code !== undefined ? String((error as { code: unknown }).code) : type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Settles `answer` (what work returned, or threw) after ending the span; a failure marks it first. */
function endWith<T>(span: Span, answer: () => Promise<T> | T): Promise<T> {
  const failed = (error: unknown): never => {
    recordFailure(span, error);
    span.end();
    throw error;
  };
  let value: Promise<T> | T;
  try {
    value = answer();
  } catch (error) {
    recordFailure(span, error);
    span.end();
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what work threw, rethrown as it was
    return Promise.reject(error);
  }
  if (typeof (value as { then?: unknown } | null)?.then !== 'function') {
    span.end();
    return Promise.resolve(value);
  }
  return Promise.resolve(value).then((settled) => {
    span.end();
    return settled;
  }, failed);
}

/**
 * Runs `work` in a new active span, ended when it settles; a throw marks the span failed and is
 * rethrown. While no provider is registered (tracing off), `work` runs at once with a
 * non-recording span: no span, context or promise is made for a trace no one records, on paths
 * that pass here several times per request. With tracing on, the span ends on one promise
 * reaction, not an async function's.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T> | T): Promise<T> {
  const live = liveTracer();
  if (!live) {
    try {
      return Promise.resolve(work(notRecording));
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what work threw, as the async path rethrows it
      return Promise.reject(error);
    }
  }
  const { parent = context.active(), ...spanOptions } = options;
  return live.startActiveSpan(name, spanOptions, parent, (span) => endWith(span, () => work(span)));
}

/** Whether spans are being recorded in this process (telemetry started and the trace sampled). */
export function isRecording(): boolean {
  return trace.getActiveSpan()?.isRecording() ?? false;
}

/** Adds `traceparent` (and `tracestate`) of the active span to outgoing HTTP headers; nothing when tracing is off. */
export function injectTraceHeaders(headers: Headers, from: Context = context.active()): void {
  propagation.inject(from, headers, {
    set: (carrier, key, value) => {
      carrier.set(key, value);
    },
  });
}

/** The same for gRPC metadata or any string record. */
export function injectTraceContext(carrier: { set(key: string, value: string): void }, from: Context = context.active()): void {
  propagation.inject(from, carrier, {
    set: (target, key, value) => {
      target.set(key, value);
    },
  });
}

type Carrier = Readonly<Record<string, unknown>>;

const getter: TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
    return undefined;
  },
};

/** The context a caller sent (`traceparent`, `tracestate` in headers, metadata or `_meta`), as the parent of this side's span. */
export function extractTraceContext(carrier: Carrier | undefined, base: Context = ROOT_CONTEXT): Context {
  return carrier ? propagation.extract(base, carrier, getter) : base;
}

/** The active span's context as a `traceparent` string, to store with queued work; undefined when not recording. */
export function currentTraceparent(): string | undefined {
  const holder: Record<string, string> = {};
  propagation.inject(context.active(), holder);
  return holder.traceparent;
}

/** A link to the span a stored `traceparent` names (the ingest of a queued delivery); none when it is missing or malformed. */
export function linkTo(traceparent: string | null | undefined, attributes?: Attributes): Link[] {
  if (!traceparent) return [];
  const linked = trace.getSpanContext(extractTraceContext({ traceparent }));
  return linked ? [{ context: linked, ...(attributes && { attributes }) }] : [];
}
