// POST /internal/telemetry: where the platform's telemetry pipeline hands points to the webhook
// service. A shared bearer token (compared in constant time), a bounded JSON body, every point
// checked before any is accepted, and 202 only once the points and the deliveries they produce are
// committed together.
import { plainText } from '@platform/shared';
import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { bearerMatches, expectedBearer } from './bearer-token.ts';
import { invalid, WebhookApiError } from './errors.ts';
import { parse } from './route-inputs.ts';
import type { DeliveryQueue, QueuedPoint } from '../queue/delivery-queue.ts';

export interface IngestDependencies {
  readonly queue: DeliveryQueue;
  readonly token: string;
  readonly maxPoints: number;
  readonly maxBodyBytes: number;
  /** The body's checks and parser (the app's: JSON only, no key given twice), given the size limit. */
  readonly jsonBody: (limitBytes: number) => RequestHandler[];
  /** Told how many points were accepted and how many (point, configuration) pairs they queued. */
  readonly onIngested?: (points: number, queued: number) => void;
  readonly now?: () => number;
}

/** Names of fields and tags, like the identifiers: plain text, bounded. */
const name = (what: string) =>
  plainText(z.string({ error: `${what} names must be strings` }))
    .min(1, `${what} names must not be empty`)
    .max(255, `${what} names must be at most 255 characters`);

const identifier = (max: number) =>
  plainText(z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') }))
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`);

export const maxFieldsPerPoint = 1000;
export const maxTagsPerPoint = 100;
export const maxTagValueLength = 1024;

const telemetryPoint = z.strictObject({
  deviceId: z
    .number({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a number') })
    .int('must be a whole number')
    .positive('must be positive')
    .max(Number.MAX_SAFE_INTEGER, 'is too large'),
  gatewayId: identifier(255),
  connectionTag: identifier(255),
  measurement: identifier(255),
  fields: z
    .record(name('field'), z.number({ error: 'must be a finite number' }), { error: 'must be an object of field names to numbers' })
    .refine((fields) => Object.keys(fields).length > 0, 'must hold at least one field')
    .refine((fields) => Object.keys(fields).length <= maxFieldsPerPoint, `may hold at most ${maxFieldsPerPoint} fields`),
  tags: z
    .record(name('tag'), plainText(z.string({ error: 'must be a string' })).max(maxTagValueLength, `must be at most ${maxTagValueLength} characters`), {
      error: 'must be an object of tag names to strings',
    })
    .refine((tags) => Object.keys(tags).length <= maxTagsPerPoint, `may hold at most ${maxTagsPerPoint} tags`)
    .default({}),
  utcTimestamp: z.iso.datetime({ error: 'must be an ISO 8601 UTC timestamp, such as 2026-11-22T12:00:00Z' }),
});

const telemetryBatch = (maxPoints: number) =>
  z.strictObject({
    points: z
      .array(telemetryPoint, { error: (issue) => (issue.input === undefined ? 'is required' : 'must be an array of points') })
      .min(1, 'must hold at least one point')
      .max(maxPoints, `may hold at most ${maxPoints} points`),
  });

/**
 * JSON.parse keeps "__proto__" as an ordinary key, which a parsed record would drop without a word
 * (copied into an object, it sets the prototype instead): refused, naming the point.
 */
function refuseProtoKeys(body: unknown): void {
  const points = (body as { points?: unknown } | null)?.points;
  if (!Array.isArray(points)) return;
  points.forEach((point: unknown, index) => {
    for (const map of ['fields', 'tags'] as const) {
      const value = (point as Record<string, unknown> | null)?.[map];
      if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
        throw invalid(`points.${index}.${map}`, `${map === 'fields' ? 'field' : 'tag'} names must not be __proto__`);
      }
    }
  });
}

/** The delivered shape of a point (SPEC "Delivered point"), keys in the documented order. */
function deliveredPoint(point: z.output<typeof telemetryPoint>): string {
  return JSON.stringify({ Measurement: point.measurement, Fields: point.fields, Tags: point.tags, UtcTimestamp: point.utcTimestamp });
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

export function createIngestRoutes(deps: IngestDependencies): Router {
  const router = Router();
  const schema = telemetryBatch(deps.maxPoints);
  router.post('/internal/telemetry', requireIngestToken(deps.token), ...deps.jsonBody(deps.maxBodyBytes), async (req, res) => {
    refuseProtoKeys(req.body);
    const { points } = parse(schema, req.body, 'body');
    const queued: QueuedPoint[] = points.map((point) => ({
      deviceId: point.deviceId,
      gatewayId: point.gatewayId,
      connectionTag: point.connectionTag,
      measurement: point.measurement,
      point: deliveredPoint(point),
    }));
    const result = await deps.queue.ingest(queued, deps.now?.() ?? Date.now());
    deps.onIngested?.(points.length, result.queued);
    res.status(202).json({ accepted: points.length, queued: result.queued });
  });
  return router;
}
