// GET /metrics for Prometheus: the delivery metrics in the text format, behind a bearer token when
// one is configured. A store that cannot be read while the queue gauges are collected is an outage
// (503), not a fault of the scrape.
import type { RequestHandler } from 'express';
import { bearerMatches, expectedBearer } from './bearer-token.ts';
import type { DeliveryMetrics } from '../delivery/metrics.ts';
import { StoreUnavailableError } from '../store/store-unavailable.ts';

export function metricsHandler({ metrics, token }: { metrics: DeliveryMetrics; token: string | undefined }): RequestHandler {
  if (token === '') throw new Error('metricsHandler: token must not be empty; leave it undefined to serve /metrics without one');
  const expected = token === undefined ? undefined : expectedBearer(token);
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
