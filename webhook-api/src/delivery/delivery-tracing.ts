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

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname;
  } catch {
    return 'unknown';
  }
};

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
    run: (attempt) => traceContext.with(trace.setSpan(traceContext.active(), span), attempt),
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
