// The request and response shapes of the webhook API as zod schemas: validation at the edge and
// the OpenAPI document come from these same definitions.
import { plainText } from '@platform/tool-sdk/internal';
import { z } from 'zod';
import { maxCredentialLength, maxHeaderCount, maxHeaderNameLength, maxHeaderValueLength } from '../configs/header-rules.ts';
import { errorCodes } from './errors.ts';
import { webhookUrl } from '../configs/url-rules.ts';
import { authTypes, configStatuses, deliveryModes, httpMethods, orderings, scopeLevels } from '../store/records.ts';

/** The named schemas of the API; the OpenAPI document's components come from here. */
export const apiSchemas = z.registry<{ id: string; description?: string }>();

/** One of `values`, the refusal naming them all (or saying the field is required, when it is missing and has no default). */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: (issue) => (issue.input === undefined ? 'is required' : `must be one of ${values.join(', ')}`) });

const breaking =
  'Content-*, Host, Forwarded, X-Forwarded-*, Via, X-Real-IP, hop-by-hop and Proxy-* headers, X-Webhook-*, User-Agent, Webhook-Id, Webhook-Timestamp, Webhook-Signature';

const authPayloadText =
  `Write-only: stored encrypted, never returned. A JSON object serialized as a string with exactly the keys its authType takes (Bearer: token; ApiKey: apiKeyValue; Basic: username, password; Custom: headers, an object of header names to values, credentials allowed). ` +
  `Each credential at most ${maxCredentialLength} characters; Custom: 1 to ${maxHeaderCount} headers, names at most ${maxHeaderNameLength} characters, none of ${breaking}.`;

const customHeadersText =
  `A JSON object of header names to string values, serialized as a string, added to every delivery and returned in clear: at most ${maxHeaderCount} headers, names at most ${maxHeaderNameLength} characters, values at most ${maxHeaderValueLength}. ` +
  `Values hold visible ASCII, spaces, tabs and U+00A0 to U+00FF only; a name may be given once (in any letter case). ` +
  `No credentials: not Authorization, Cookie or X-API-Key, no name ending in key or containing auth, token, secret, password, passphrase, pwd, api-key, subscription-key, session, cookie, credential, creds or signature, or with pass, sig or psk as a word, and no value that starts with a Bearer, Basic, Token or Digest authorization or holds a JWT ` +
  `(use authType Custom, whose headers are stored encrypted, or Bearer, Basic or ApiKey). None of ${breaking}.`;

const maxRateLimit = 10_000;
const rateLimit = z
  .number({ error: `must be a whole number from 1 to ${maxRateLimit}, or null` })
  .int(`must be a whole number from 1 to ${maxRateLimit}, or null`)
  .min(1, `must be a whole number from 1 to ${maxRateLimit}, or null`)
  .max(maxRateLimit, `must be a whole number from 1 to ${maxRateLimit}, or null`)
  .nullable()
  .meta({
    description: `At most this many requests a second to the endpoint, all deliverers together (a Batch request counts once); deliveries wait for their turn, they are not failed. 1 to ${maxRateLimit}; null or omitted: no limit (on PUT, omitted keeps the stored limit and null removes it).`,
  });

/** The fields of a configuration as sent on create and update (PUT replaces them all). */
export const webhookConfigInput = z
  .strictObject({
    name: plainText(z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') }))
      .trim()
      .min(1, 'is required')
      .max(255, 'must be at most 255 characters'),
    url: webhookUrl,
    method: oneOf(httpMethods).default('POST'),
    deliveryMode: oneOf(deliveryModes),
    authType: oneOf(authTypes).default('None'),
    authPayload: z.string({ error: 'must be a JSON object serialized as a string' }).nullable().optional().meta({ description: authPayloadText }),
    customHeaders: z.string({ error: 'must be a JSON object serialized as a string' }).nullable().optional().meta({ description: customHeadersText }),
    includeMetadataHeaders: z.boolean({ error: 'must be true or false' }).default(true),
    includeRetryHeader: z.boolean({ error: 'must be true or false' }).default(true),
    rateLimitPerSecond: rateLimit.optional(),
    ordering: oneOf(orderings).optional().meta({
      description:
        'None (the default): deliveries go as they come, several at once. PerDevice: the deliveries of one device (for Batch, of one gateway and measurement) go one at a time in ingest order, a retrying one holding back the later ones of that device only. On PUT, omitted keeps it.',
    }),
  })
  .register(apiSchemas, { id: 'WebhookConfigInput' });

export type WebhookConfigInput = z.output<typeof webhookConfigInput>;

/**
 * PUT: name, url and deliveryMode as on create; every other field, when omitted, keeps its stored
 * value (a rename must not reset authType and drop the credentials). authPayload and customHeaders:
 * null or omitted keeps, a value replaces, an empty string clears.
 */
export const webhookConfigUpdate = webhookConfigInput
  .extend({
    method: oneOf(httpMethods).optional(),
    authType: oneOf(authTypes).optional(),
    includeMetadataHeaders: z.boolean({ error: 'must be true or false' }).optional(),
    includeRetryHeader: z.boolean({ error: 'must be true or false' }).optional(),
    status: oneOf(configStatuses).optional().meta({
      description:
        'Disabled: no new point is queued for the configuration and what is queued waits (until Active again, or until it is older than the maximum delivery age). Active: delivered to again, its health counted afresh.',
    }),
  })
  .register(apiSchemas, { id: 'WebhookConfigUpdate' });

export type WebhookConfigUpdate = z.output<typeof webhookConfigUpdate>;

export const webhookConfig = z
  .object({
    id: z.string(),
    companyId: z.number().int().min(1),
    name: z.string(),
    url: z.string(),
    method: z.enum(httpMethods),
    deliveryMode: z.enum(deliveryModes),
    authType: z.enum(authTypes),
    customHeaders: z.string().nullable(),
    includeMetadataHeaders: z.boolean(),
    includeRetryHeader: z.boolean(),
    status: z.enum(configStatuses).meta({
      description:
        'Active, or Disabled: by a manager (PUT), or by the deliverers when the endpoint answered 410 Gone or every attempt failed for WEBHOOK_DISABLE_AFTER (24 h by default).',
    }),
    disabledReason: z.string().nullable().meta({ description: 'Why it is disabled; null while Active.' }),
    disabledAt: z.iso.datetime().nullable().meta({ description: 'When it was disabled; null while Active.' }),
    rateLimitPerSecond: z
      .number()
      .int()
      .min(1)
      .max(maxRateLimit)
      .nullable()
      .meta({ description: 'At most this many requests a second to the endpoint; null: no limit.' }),
    ordering: z.enum(orderings).meta({ description: 'None, or PerDevice: one delivery at a time per device (per batch stream), in ingest order.' }),
  })
  .register(apiSchemas, { id: 'WebhookConfig', description: 'A configuration; never carries credentials (authPayload is write-only).' });

export type WebhookConfig = z.output<typeof webhookConfig>;

export const deviceLink = z
  .object({ deviceId: z.number().int().min(1), webhookConfigId: z.string(), createdAt: z.iso.datetime() })
  .register(apiSchemas, { id: 'DeviceLink' });

export type DeviceLink = z.output<typeof deviceLink>;

const optionalText = plainText(z.string({ error: 'must be a string or null' }))
  .max(255, 'must be at most 255 characters')
  .nullable()
  .optional();

export const scopeInput = z
  .strictObject({
    scopeLevel: oneOf(scopeLevels),
    connectionTag: optionalText,
    measurement: optionalText,
    enabled: z.boolean({ error: 'must be true or false' }).default(true),
  })
  .register(apiSchemas, { id: 'ScopeInput' });

export type ScopeInput = z.output<typeof scopeInput>;

export const scope = z
  .object({
    id: z.string(),
    scopeLevel: z.enum(scopeLevels),
    connectionTag: z.string().nullable(),
    measurement: z.string().nullable(),
    enabled: z.boolean(),
  })
  .register(apiSchemas, { id: 'Scope' });

export type Scope = z.output<typeof scope>;

export const errorResponse = z
  .object({
    error: z.object({
      code: z.enum(errorCodes),
      message: z.string(),
      field: z.string().optional(),
      hint: z.string().optional().meta({ description: 'What to do about it, where the message alone would leave the client guessing.' }),
    }),
  })
  .register(apiSchemas, { id: 'Error' });
