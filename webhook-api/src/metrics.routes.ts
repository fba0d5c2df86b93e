// GET /metrics for Prometheus: the delivery metrics in the text format, behind a bearer token when
// one is configured. A store that cannot be read while the queue gauges are collected is an outage
// (503), not a fault of the scrape.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { DeliveryMetrics } from './delivery/metrics.ts';
import { StoreUnavailableError } from './store/store-unavailable.ts';

/** SHA-256 digests are of equal length, so comparing them takes the same time whatever was sent. */
const digestOf = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** What `bearerMatches` compares a request with: the digest of `Bearer <token>`. */
export const expectedBearer = (token: string) => digestOf(`Bearer ${token}`);

/**
 * Whether the request's Authorization headers are exactly one, `Bearer <token>`, compared in
 * constant time with the digest `expectedBearer` made (the token may hold any character the
 * settings allow, so the header is compared whole rather than parsed).
 */
export function bearerMatches(authorization: readonly string[] | undefined, expected: Buffer): boolean {
  const [presented, ...more] = authorization ?? [];
  return presented !== undefined && more.length === 0 && timingSafeEqual(digestOf(presented), expected);
}

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
