// What a route reads from a request, checked at the edge: a body or query against its schema (400
// naming the first bad field), the ids in the path, the companyId query.
import { isPlainText } from '@platform/tool-sdk/internal';
import type { Request } from 'express';
import { z } from 'zod';
import { invalid } from './errors.ts';

/** A key the client sent, as a message may name it: a plain name as it is, anything else (long, control or direction characters) as `[key]`. */
const echoable = (key: string) => (/^[A-Za-z0-9_.$-]{1,64}$/.test(key) ? key : '[key]');

/** What a body that is no object is, for its message. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

export function parse<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query'): z.output<S> {
  if (where === 'body' && value === undefined) throw invalid('body', 'is required: a JSON object, sent with Content-Type: application/json');
  if (where === 'body' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw invalid('body', `must be a JSON object, not ${kindOf(value)}`);
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.map((part) => (typeof part === 'number' ? String(part) : echoable(String(part)))) ?? [];
  // An unknown key is named where it is: `extra`, or `points.0.extra`.
  const keys = issue?.code === 'unrecognized_keys' ? issue.keys.map((key) => [...path, echoable(key)].join('.')) : [];
  const field = keys.length > 0 ? keys.join(', ') : path.join('.') || where;
  throw invalid(field, keys.length > 0 ? 'is not a field of this request' : (issue?.message ?? 'is invalid'));
}

export function deviceIdOf(req: Request): number {
  const raw = String(req.params.deviceId);
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw invalid('deviceId', 'must be a positive whole number, without leading zeros');
  return Number(raw);
}

/** Configuration, route and delivery ids are UUIDs this service generated (versions 4 and 7, lower case). */
const generatedId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The id in path parameter `name`: 400 for a control character (PostgreSQL refuses NUL in text),
 * undefined when it cannot be an id this service made, so it is not found without a query.
 */
export function idOf(req: Request, name: 'id' | 'routeId' | 'deliveryId'): string | undefined {
  const raw = String(req.params[name]);
  if (!isPlainText(raw)) throw invalid(name, 'must not contain control characters');
  return generatedId.test(raw) ? raw : undefined;
}

export const companyQuery = z.object({
  companyId: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be given once, as a positive whole number') })
    // As a deviceId in a path: one spelling per company, no leading zeros.
    .regex(/^[1-9]\d{0,14}$/, 'must be a positive whole number, without leading zeros')
    .transform(Number),
});
