// POST /internal/telemetry: where the platform's telemetry pipeline hands points to the webhook
// service. A shared bearer token (compared in constant time), a bounded JSON body, every point
// checked before any is accepted, and 202 only once the points and the deliveries they produce are
// committed together.
import { Router, type RequestHandler } from 'express';
import { refuseProtoKeys, telemetryBatch, toQueuedPoint } from '../ingest/telemetry-points.ts';
import type { DeliveryQueue } from '../queue/delivery-queue.ts';
import { bearerMatches, expectedBearer } from './bearer-token.ts';
import { WebhookApiError } from './errors.ts';
import { parse } from './route-inputs.ts';

export interface IngestDependencies {
  readonly queue: DeliveryQueue;
  readonly token: string;
  readonly maxPoints: number;
  readonly maxBodyBytes: number;
  /** The body's checks and parser (the app's: JSON only, no key given twice), given the size limit. */
  readonly jsonBody: (limitBytes: number) => RequestHandler[];
  /**
   * Told how many points were accepted, how many (point, configuration) pairs they queued, and how
   * many they did not queue because the configuration is disabled.
   */
  readonly onIngested?: (points: number, queued: number, skipped: number) => void;
  readonly now?: () => number;
}

/** Asks for the ingest token: one Authorization header, compared in constant time. */
function requireIngestToken(token: string): RequestHandler {
  const expected = expectedBearer(token);
  return (req, res, next) => {
    if (!bearerMatches(req.headersDistinct.authorization, expected)) {
      res.set('www-authenticate', 'Bearer');
      throw new WebhookApiError('UNAUTHENTICATED', 'Authorization: the ingest token is missing or wrong', { field: 'Authorization' });
    }
    next();
  };
}

/** The ingest route, to be mounted at `/internal`: other requests pass by on the prefix alone. */
export function createIngestRoutes(deps: IngestDependencies): Router {
  const router = Router();
  const schema = telemetryBatch(deps.maxPoints);
  router.post('/telemetry', requireIngestToken(deps.token), ...deps.jsonBody(deps.maxBodyBytes), async (req, res) => {
    refuseProtoKeys(req.body);
    const { points } = parse(schema, req.body, 'body');
    const result = await deps.queue.ingest(points.map(toQueuedPoint), deps.now?.() ?? Date.now());
    deps.onIngested?.(points.length, result.queued, result.skipped ?? 0);
    res.status(202).json({ accepted: points.length, queued: result.queued });
  });
  return router;
}
