// POST /internal/telemetry: where the platform's telemetry pipeline hands points to the webhook
// service. A shared bearer token (compared in constant time), a bounded JSON body, every point
// checked before any is accepted, and 202 only once the points and the deliveries they produce are
// committed together. An Idempotency-Key makes a retry of the same points within 24 hours answer
// what the first request was answered (with Idempotent-Replayed: true) and queue nothing.
import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { refuseProtoKeys, telemetryBatch, toQueuedPoint } from '../ingest/telemetry-points.ts';
import type { DeliveryQueue, QueuedPoint } from '../queue/delivery-queue.ts';
import { bearerMatches, expectedBearer } from './bearer-token.ts';
import { invalid, WebhookApiError } from './errors.ts';
import { parse } from './route-inputs.ts';

export interface IngestDependencies {
  readonly queue: DeliveryQueue;
  readonly token: string;
  readonly maxPoints: number;
  readonly maxBodyBytes: number;
  /** The body's checks and parser (the app's: JSON only, no key given twice), given the size limit. */
  readonly jsonBody: (limitBytes: number) => RequestHandler[];
  /**
   * Told how many points were accepted, how many (point, configuration) pairs they queued, how
   * many they did not queue because the configuration is disabled, and how many points were not
   * routed at all because the webhook feature is off.
   */
  readonly onIngested?: (points: number, queued: number, skipped: number, featureDisabled?: number) => void;
  readonly now?: () => number;
  /** Default true. False: the points are checked and answered as accepted, and nothing is queued (the webhook feature is off here). */
  readonly featureEnabled?: boolean;
}

/** Asks for the ingest token: one Authorization header, compared in constant time. */
function requireIngestToken(token: string): RequestHandler {
  const expected = expectedBearer(token);
  return (req, res, next) => {
    const sent = req.headersDistinct.authorization;
    if (!bearerMatches(sent, expected)) {
      res.set('www-authenticate', 'Bearer');
      // Several headers are refused, not guessed between; said so, since each may be right.
      const message = sent !== undefined && sent.length > 1 ? 'send one Authorization header, not several' : 'the ingest token is missing or wrong';
      throw new WebhookApiError('UNAUTHENTICATED', `Authorization: ${message}`, { field: 'Authorization' });
    }
    next();
  };
}

/** An Idempotency-Key: 1 to 255 printable ASCII characters (visible, or spaces between them). */
const idempotencyKeyPattern = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

/** The request's Idempotency-Key, if it sent one; 400 for several, or one that is not 1 to 255 printable characters. */
function idempotencyKeyOf(req: Request): string | undefined {
  const [key, ...more] = req.headersDistinct['idempotency-key'] ?? [];
  if (key === undefined) return undefined;
  if (more.length > 0) throw invalid('Idempotency-Key', 'must be sent once');
  if (!idempotencyKeyPattern.test(key)) throw invalid('Idempotency-Key', 'must be 1 to 255 printable ASCII characters');
  return key;
}

/** What a request's points are known by under its key: a digest of them as validated (the same body always gives the same digest). */
const pointsDigest = (points: readonly QueuedPoint[]) =>
  createHash('sha256')
    .update(JSON.stringify(points.map((p) => [p.deviceId, p.gatewayId, p.connectionTag, p.measurement, p.point])))
    .digest('base64url');

/** Where ingest is served: the path the router, the docs' table and the OpenAPI document all name. */
export const ingestPath = '/internal/telemetry';

/** The ingest route, added to the app itself (so its router lists it by its whole path). */
export function addIngestRoute(target: { post(path: string, ...handlers: RequestHandler[]): unknown }, deps: IngestDependencies): void {
  const schema = telemetryBatch(deps.maxPoints);
  // Keys are kept per ingest caller: the holder of the ingest token, known by a digest of it (never the token).
  const caller = createHash('sha256').update(`ingest caller ${deps.token}`).digest('base64url').slice(0, 22);
  target.post(ingestPath, requireIngestToken(deps.token), ...deps.jsonBody(deps.maxBodyBytes), async (req, res) => {
    const key = idempotencyKeyOf(req);
    refuseProtoKeys(req.body);
    const { points } = parse(schema, req.body, 'body');
    if (deps.featureEnabled === false) {
      // The platform's pipeline keeps sending; with no webhook here, its points are not for us to keep.
      deps.onIngested?.(points.length, 0, 0, points.length);
      res.status(202).json({ accepted: points.length, queued: 0 });
      return;
    }
    const queued = points.map(toQueuedPoint);
    const idempotency = key === undefined ? undefined : { caller, key, bodyHash: pointsDigest(queued) };
    const result = await deps.queue.ingest(queued, deps.now?.() ?? Date.now(), idempotency);
    if (result === 'key-conflict') {
      throw new WebhookApiError('CONFLICT', 'Idempotency-Key: was sent within the last 24 hours with other points; use a new key for new points', {
        field: 'Idempotency-Key',
      });
    }
    if (result.replayed) {
      res.set('idempotent-replayed', 'true');
      res.status(202).json(result.replayed);
      return;
    }
    deps.onIngested?.(points.length, result.queued, result.skipped ?? 0);
    res.status(202).json({ accepted: points.length, queued: result.queued });
  });
}
