// A telemetry point as the platform's pipeline hands it over: checked whole (plain-text names,
// bounded maps, finite numbers, an ISO 8601 UTC timestamp) before any is accepted, and turned into
// what the queue keeps: the routing keys and the delivered point as JSON text.
import { plainText } from '@platform/tool-sdk/internal';
import { z } from 'zod';
import { invalid } from '../configs/invalid-input.ts';
import type { QueuedPoint } from '../queue/delivery-queue.ts';

/** Names of fields and tags, like the identifiers: plain text, bounded. */
const name = (what: string) =>
  plainText(z.string({ error: `${what} names must be strings` }))
    .min(1, `${what} names must not be empty`)
    .max(255, `${what} names must be at most 255 characters`);

const identifier = (max: number) =>
  plainText(z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') }))
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`);

const maxFieldsPerPoint = 1000;
const maxTagsPerPoint = 100;
const maxTagValueLength = 1024;

const telemetryPoint = z.strictObject(
  {
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
  },
  { error: 'must be a point: an object with deviceId, gatewayId, connectionTag, measurement, fields and utcTimestamp' },
);

export const telemetryBatch = (maxPoints: number) =>
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
export function refuseProtoKeys(body: unknown): void {
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

export type TelemetryPoint = z.output<typeof telemetryPoint>;

/**
 * A point as the queue takes it: what routing needs, and its delivered shape as JSON text: SPEC's
 * "Delivered point" keys in the documented order, then the device that sent it and its connection
 * (a Batch request holds points of several devices of one gateway, told apart by these two).
 */
export const toQueuedPoint = (point: TelemetryPoint): QueuedPoint => ({
  deviceId: point.deviceId,
  gatewayId: point.gatewayId,
  connectionTag: point.connectionTag,
  measurement: point.measurement,
  point: JSON.stringify({
    Measurement: point.measurement,
    Fields: point.fields,
    Tags: point.tags,
    UtcTimestamp: point.utcTimestamp,
    DeviceId: point.deviceId,
    ConnectionTag: point.connectionTag,
  }),
});
