// The delivery request a configuration's endpoint receives, as an OpenAPI 3.1 `webhooks` entry: the
// envelope, the headers SPEC lists and the Standard Webhooks ones, and what each answer means.

const header = (name: string, description: string, required: boolean) => ({ name, in: 'header', required, description, schema: { type: 'string' } });

const point = {
  type: 'object',
  required: ['Measurement', 'Fields', 'Tags', 'UtcTimestamp', 'DeviceId', 'ConnectionTag'],
  properties: {
    Measurement: { type: 'string' },
    Fields: { type: 'object', additionalProperties: { type: 'number' } },
    Tags: { type: 'object', additionalProperties: { type: 'string' } },
    UtcTimestamp: { type: 'string', format: 'date-time' },
    DeviceId: {
      type: 'integer',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'The device that sent the point (a Batch request holds points of several devices of one gateway); 0 on a test delivery.',
    },
    ConnectionTag: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description: "The device's connection the point came in on; webhook-test on a test delivery.",
    },
  },
};

const envelope = {
  type: 'object',
  required: ['Timestamp', 'Metadata'],
  properties: {
    Timestamp: { type: 'string', format: 'date-time', description: 'When this attempt was sent.' },
    Metadata: {
      type: 'object',
      required: ['Company', 'GatewayId', 'Measurement'],
      properties: { Company: { type: 'string' }, GatewayId: { type: 'string' }, Measurement: { type: 'string' } },
    },
    Point: { ...point, description: 'Realtime: the one data point.' },
    Points: {
      type: 'array',
      items: point,
      description: 'Batch: the points of one measurement from one gateway, of one or several of its devices (each point names its DeviceId and ConnectionTag).',
    },
  },
};

export const deliveryRequestDocument = {
  telemetryDelivery: {
    post: {
      summary: 'A delivery to the configured url, with the configured method (POST, PUT or PATCH)',
      description:
        'Delivered at least once: a retry, or a resend, carries the same webhook-id, by which a receiver drops what it already has. Verify webhook-signature with any Standard Webhooks library and the secret of GET /v2/webhooks/{id}/signing-secret; reject a webhook-timestamp far from your clock.',
      parameters: [
        header('webhook-id', 'The delivery: the same on each of its retries and on a resend of it; one per Batch request.', true),
        header('webhook-timestamp', 'Seconds since the epoch when this attempt was sent.', true),
        header(
          'webhook-signature',
          'v1, and the base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed with the signing secret; for 24 hours after a rotation, one by each secret, space-separated (at most two: a rotation within 24 hours of the last is refused).',
          true,
        ),
        header('User-Agent', "Platform.Cloud.Stream.WebhookHttpClient/<version> (this document's info.version), when includeMetadataHeaders is true.", false),
        header('X-Webhook-Timestamp', 'ISO 8601 time of sending, when includeMetadataHeaders is true.', false),
        header('X-Webhook-Retry-Count', '0 on the first attempt, then 1, 2, ..., when includeRetryHeader is true.', false),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: envelope } } },
      responses: {
        '2XX': { description: 'Delivered.' },
        '4XX': { description: 'Dropped at once (a permanent misconfiguration), but for 429, which is retried with backoff (Retry-After honoured).' },
        '5XX': { description: 'Retried with backoff, as is a timeout (about 10 s to connect, 30 s for the request).' },
      },
    },
  },
};
