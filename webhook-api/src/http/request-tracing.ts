// An HTTP server span per request, continuing the caller's `traceparent` (the tool service's call
// of the API, or the ingest's sender): named by the matched route (`GET /v2/webhooks/companies/:companyId/webhooks`),
// with method, route, path and status; never the query or a header's value.
import { extractTraceContext, pathOf, SpanKind, SpanStatusCode, trace, traceContext, tracer } from '@platform/tool-sdk/observability';
import type { RequestHandler } from 'express';

export function traceRequests(): RequestHandler {
  // One tracer for every request: tracer() makes a new proxy on each call while tracing is off (a
  // proxy made before tracing starts delegates to the real tracer once it has).
  const requestTracer = tracer();
  return (req, res, next) => {
    const span = requestTracer.startSpan(
      req.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'url.path': pathOf(req.originalUrl), 'url.scheme': 'http' } },
      extractTraceContext(req.headers),
    );
    // Tracing off and no trace to continue: no context to run the request in and nothing to end.
    // A span left unsampled still has a valid context, which goes on to what the request calls.
    if (!span.isRecording() && !trace.isSpanContextValid(span.spanContext())) {
      next();
      return;
    }
    res.once('close', () => {
      const route = (req.route as { path?: unknown } | undefined)?.path;
      if (typeof route === 'string') {
        span.setAttribute('http.route', `${req.baseUrl}${route}`);
        span.updateName(`${req.method} ${req.baseUrl}${route}`);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    const active = trace.setSpan(traceContext.active(), span);
    // The body arrives in events of the socket's own context: bound, its listeners (the JSON parser's) run in the span's.
    traceContext.bind(active, req);
    traceContext.with(active, next);
  };
}
