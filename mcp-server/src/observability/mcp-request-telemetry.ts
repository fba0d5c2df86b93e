// The span and the count of each request to the MCP endpoint: an HTTP server span (`POST /mcp`)
// continuing a client's `traceparent` header, active while the caller is checked and the request
// handled, ended with its status when the answer is done; and the MCP requests counter by method
// and outcome. The span carries the method, route, path and status, never a header's value.
import { extractTraceContext, pathOf, SpanKind, SpanStatusCode, traceContext, tracer, trace, type Context } from '@platform/tool-sdk/observability';
import type { NextFunction, Request, Response } from 'express';
import type { GatewayMetrics } from './gateway-metrics.ts';

/** Which MCP method a request carries, for the span and the metric: never the params. */
function mcpMethodOf(req: Request): string | undefined {
  if (req.method === 'GET') return 'stream';
  if (req.method === 'DELETE') return 'end session';
  const body = req.body as unknown;
  const first = (Array.isArray(body) ? body[0] : body) as { method?: unknown } | null | undefined;
  return typeof first?.method === 'string' ? first.method : undefined;
}

/**
 * Each request's span context, for the MCP handlers: the body arrives in events of the socket's own
 * context, so the active context is lost once it is parsed. Carrying it on the caller's auth info
 * costs nothing where binding the request's emitter to it (every listener wrapped) cost a tenth of
 * a call's CPU time.
 */
const requestContexts = new WeakMap<Request, Context>();
const contextKey = Symbol('platform.traceContext');

/** Puts the request's span context on the auth info requireCaller gave it, where the MCP handlers read it. */
export function carryRequestContext(req: Request): void {
  const context = requestContexts.get(req);
  const extra = req.auth?.extra;
  if (context && extra) Reflect.set(extra, contextKey, context);
}

/** The span context of the HTTP request an MCP request came in, from its auth info. */
export function requestContextOf(extra: unknown): Context | undefined {
  return (extra as Record<symbol, Context | undefined> | undefined)?.[contextKey];
}

const outcomeOf = (status: number) => (status < 400 ? 'ok' : status < 500 ? 'client_error' : 'server_error');

export function traceMcpRequests(route: string, metrics: GatewayMetrics | undefined) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const span = tracer().startSpan(
      `${req.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': req.method, 'http.route': route, 'url.path': pathOf(req.originalUrl), 'url.scheme': 'http' },
      },
      extractTraceContext(req.headers),
    );
    res.once('close', () => {
      const method = mcpMethodOf(req);
      if (span.isRecording()) {
        span.setAttributes({
          ...(method !== undefined && { 'mcp.method.name': method }),
          ...(req.caller && { 'enduser.id': req.caller.id }),
          'http.response.status_code': res.statusCode,
        });
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
      metrics?.mcpRequest(method, outcomeOf(res.statusCode));
    });
    const active = trace.setSpan(traceContext.active(), span);
    requestContexts.set(req, active);
    traceContext.with(active, next);
  };
}
