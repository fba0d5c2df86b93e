// The calls of the webhook service beside /v2/webhooks, as OpenAPI paths: ingest (the platform's
// telemetry pipeline, with its own token), the document itself, health and metrics (with theirs).
// The ingest body comes from the zod schema that validates it.
import { z } from 'zod';
import { telemetryBatch } from '../ingest/telemetry-points.ts';
import { ingestPath } from './telemetry.routes.ts';

/** WEBHOOK_INGEST_MAX_POINTS and WEBHOOK_INGEST_MAX_BYTES by default: what the document states as the limits. */
const defaultIngestMaxPoints = 1000;
const defaultIngestMaxBytes = 1_048_576;

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
const error = (description: string) => ({ description, content: errorContent });

function ingestBody(): unknown {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(telemetryBatch(defaultIngestMaxPoints), {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  });
  return schema;
}

const ingested = {
  type: 'object',
  required: ['accepted', 'queued'],
  properties: {
    accepted: { type: 'integer', minimum: 1, maximum: defaultIngestMaxPoints, description: 'The points taken in.' },
    queued: {
      type: 'integer',
      minimum: 0,
      description: 'Point deliveries queued: a point routed to two configurations counts twice; 0 while the webhook feature is off.',
    },
  },
};

export const serviceSecuritySchemes = {
  ingestToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'WEBHOOK_INGEST_TOKEN: the platform telemetry pipeline’s shared token (npm start writes one into data/dev-secrets.env); no person’s token.',
  },
  metricsToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'WEBHOOK_METRICS_TOKEN (unless WEBHOOK_METRICS_PUBLIC=true serves /metrics to anyone).',
  },
};

export function servicePaths(): Record<string, Record<string, unknown>> {
  return {
    [ingestPath]: {
      post: {
        operationId: 'ingestTelemetry',
        summary: "Telemetry points from the platform's pipeline: each is routed to the configurations whose enabled scopes match it, and queued",
        description: `Answered 202 only once the points and the deliveries they produce are committed together. One bad point refuses the whole request and queues nothing. At most WEBHOOK_INGEST_MAX_POINTS (${defaultIngestMaxPoints}) points and WEBHOOK_INGEST_MAX_BYTES (${defaultIngestMaxBytes} bytes) a request, unless configured otherwise.`,
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              'Sent again with a retried request: within 24 hours the same key with the same points answers the first answer again (Idempotent-Replayed: true) and queues nothing; with other points, 409.',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: ingestBody() } } },
        responses: {
          202: {
            description: 'Accepted and committed',
            headers: {
              'Idempotent-Replayed': { description: 'true when this is the first answer to the same key again', schema: { type: 'string', const: 'true' } },
            },
            content: { 'application/json': { schema: ingested } },
          },
          400: error('VALIDATION_FAILED: a point, the body or the Idempotency-Key, named in field'),
          401: error('UNAUTHENTICATED: the ingest token is missing or wrong'),
          409: error('CONFLICT: the Idempotency-Key was sent within 24 hours with other points'),
          413: error('PAYLOAD_TOO_LARGE'),
          415: error('UNSUPPORTED_MEDIA_TYPE: not JSON in UTF-8'),
          503: error('STORE_UNAVAILABLE: nothing was queued; send again'),
        },
        security: [{ ingestToken: [] }],
      },
    },
    '/v2/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        summary: 'This document',
        responses: { 200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } },
        security: [],
      },
    },
    '/health': {
      get: {
        operationId: 'getHealth',
        summary: 'Whether the process is up',
        responses: {
          200: {
            description: 'Up',
            content: { 'application/json': { schema: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } } } },
          },
        },
        security: [],
      },
    },
    '/metrics': {
      get: {
        operationId: 'getMetrics',
        summary: "Prometheus metrics of ingest and delivery, every tenant's counts together (for the operator, not a customer)",
        responses: {
          200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } },
          401: { description: 'The metrics token is missing or wrong' },
        },
        security: [{ metricsToken: [] }],
      },
    },
  };
}
