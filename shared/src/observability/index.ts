// The SDK's observability surface (`@platform/tool-sdk/observability`): start tracing from the
// OTEL_* variables, write spans and carry the W3C trace context, and serve Prometheus /metrics
// behind a bearer token.
export { loadTelemetrySettings, telemetryVariables, type OtlpProtocol, type TelemetrySettings, type TraceSampler } from './telemetry-settings.ts';
export { startTelemetry, type StartTelemetryOptions, type Telemetry } from './start-telemetry.ts';
export {
  currentTraceparent,
  extractTraceContext,
  injectTraceContext,
  injectTraceHeaders,
  inSpan,
  isRecording,
  linkTo,
  recordFailure,
  SpanKind,
  SpanStatusCode,
  trace,
  traceContext,
  tracer,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type SpanOptions,
} from './tracing.ts';
export { httpClientAttributes, pathOf } from './http-attributes.ts';
export {
  createMetricsHandler,
  isMetricsRequest,
  serveMetrics,
  withMetrics,
  type MetricsAccess,
  type MetricsHandler,
  type MetricsListener,
  type MetricsOutage,
} from './metrics-endpoint.ts';
export {
  loadMetricsSettings,
  loadToolMetricsSettings,
  metricsAccessOf,
  metricsAccessProblems,
  metricsAccessShape,
  metricsAccessVariables,
  toolMetricsVariables,
  type MetricsAccessShape,
  type MetricsSettings,
  type ToolMetricsSettings,
} from './metrics-settings.ts';
export { createToolServiceMetrics, toolCallBuckets, type ToolCallObserver, type ToolServiceMetrics } from './tool-call-telemetry.ts';
