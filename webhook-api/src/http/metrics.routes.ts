// GET /metrics for Prometheus: the delivery metrics in the text format, behind a bearer token unless
// the operator opened it on purpose (they count every tenant's deliveries). A store that cannot be
// read while the queue gauges are collected is an outage (503), not a fault of the scrape.
import type { RequestHandler } from 'express';
import { bearerMatches, expectedBearer } from './bearer-token.ts';
import type { DeliveryMetrics } from '../delivery/metrics.ts';
import { StoreUnavailableError } from '../store/store-unavailable.ts';

/** Who may scrape: the holders of a bearer token, or, opened explicitly (WEBHOOK_METRICS_PUBLIC=true), anyone who reaches the port. */
export type MetricsAccess = { readonly token: string } | 'public';

export function metricsHandler({ metrics, access }: { metrics: DeliveryMetrics; access: MetricsAccess }): RequestHandler {
  if (access !== 'public' && !access.token) throw new Error("metricsHandler: the token must not be empty; pass 'public' to serve /metrics without one");
  const expected = access === 'public' ? undefined : expectedBearer(access.token);
  return async (req, res) => {
    if (expected !== undefined && !bearerMatches(req.headersDistinct.authorization, expected)) {
      res.status(401).set('www-authenticate', 'Bearer').type('text/plain').send('Authorization: the metrics token is missing or wrong\n');
      return;
    }
    let text: string;
    try {
      text = await metrics.registry.metrics();
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      res.status(503).set('retry-after', '5').type('text/plain').send('The webhook store could not be reached; try again.\n');
      return;
    }
    res.set('content-type', metrics.registry.contentType).send(text);
  };
}
