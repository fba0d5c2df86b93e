// The span of one delivery attempt: a client span in a trace of its own (a delivery outlives the
// request that queued it), linked to the ingest span whose `traceparent` the queue kept (a batch:
// each ingest whose points it carries, up to maxTraceContextsPerBatch), so a point's way from ingest
// to the receiver can be followed. It names the endpoint's host and the
// method, never the URL's path, query or userinfo, nor any header.
import { linkTo, SpanKind, SpanStatusCode, trace, traceContext, tracer, type Span } from '@platform/tool-sdk/observability';
import type { ClaimedDelivery } from '../queue/delivery-queue.ts';
import type { AttemptResult } from './outgoing.ts';

export interface DeliverySpan {
  /** Runs the attempt with this span active. */
  run<T>(attempt: () => Promise<T>): Promise<T>;
  settled(result: AttemptResult): void;
  failed(): void;
}

/** Hosts by URL, worked out once per configured URL: parsing a URL for each attempt's span cost more than the span. */
const hosts = new Map<string, string>();

function hostOf(url: string): string {
  let host = hosts.get(url);
  if (host !== undefined) return host;
  try {
    host = new URL(url).hostname;
  } catch {
    host = 'unknown';
  }
  // Bounded: a process delivering to more URLs than this starts over.
  if (hosts.size >= 10_000) hosts.clear();
  hosts.set(url, host);
  return host;
}

export function startDeliverySpan(delivery: ClaimedDelivery): DeliverySpan {
  const span: Span = tracer().startSpan(
    'webhook delivery',
    {
      kind: SpanKind.CLIENT,
      root: true,
      links: (delivery.traceContexts ?? []).flatMap((context) => linkTo(context, { 'platform.link': 'ingest' })),
      attributes: {
        'http.request.method': delivery.config.method,
        'server.address': hostOf(delivery.config.url),
        'platform.webhook_config.id': delivery.config.id,
        'platform.delivery.mode': delivery.mode,
        'platform.delivery.attempt': delivery.attempts + 1,
        'platform.delivery.points': delivery.points.length,
      },
    },
    traceContext.active(),
  );
  return {
    // A span not recorded (tracing off, or not sampled) is not made active: that context would only cost.
    run: span.isRecording() ? (attempt) => traceContext.with(trace.setSpan(traceContext.active(), span), attempt) : (attempt) => attempt(),
    settled(result) {
      if (result.status !== null) span.setAttribute('http.response.status_code', result.status);
      span.setAttribute('platform.outcome', result.outcome);
      if (result.outcome !== 'delivered') span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
    failed() {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}
