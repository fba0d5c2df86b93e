// The webhook REST API as the tools reach it: only through the call context's client for the
// platform API part named `webhook`, which sends the call's delegated token as the bearer and never
// leaves that base. Every request carries `AuthVersion: V0.0.1`; every answer is read through its
// schema, so a configuration never carries more than the public fields (credentials included), and
// an answer of the wrong shape is a tool error, not a crash.
import { type HttpMethod, type PlatformMcpCallContext, type PlatformRequestOptions } from '@platform/tool-sdk/tools';
import { z } from 'zod';
import { shapedAnswer } from './answer-shape.ts';

/** The name under which the webhook API's base address is declared part of the platform API. */
export const webhookApiPart = 'webhook';

export const httpMethods = ['POST', 'PUT', 'PATCH'] as const;
export const deliveryModes = ['Realtime', 'Batch'] as const;
export const authTypes = ['None', 'Bearer', 'ApiKey', 'Basic', 'Custom'] as const;
export const scopeLevels = ['Device', 'Connection', 'Measurement'] as const;

/** A configuration as the API answers it: never credentials (authPayload is write-only). */
export const webhookConfig = z.object({
  id: z.string(),
  companyId: z.number().int(),
  name: z.string(),
  url: z.string(),
  method: z.enum(httpMethods),
  deliveryMode: z.enum(deliveryModes),
  authType: z.enum(authTypes),
  customHeaders: z.string().nullable(),
  includeMetadataHeaders: z.boolean(),
  includeRetryHeader: z.boolean(),
});
export type WebhookConfig = z.output<typeof webhookConfig>;

export const deviceLink = z.object({ deviceId: z.number().int(), webhookConfigId: z.string(), createdAt: z.string() });
export type DeviceLink = z.output<typeof deviceLink>;

export const scope = z.object({
  id: z.string(),
  scopeLevel: z.enum(scopeLevels),
  connectionTag: z.string().nullable(),
  measurement: z.string().nullable(),
  enabled: z.boolean(),
});
export type Scope = z.output<typeof scope>;

export const deliveryOutcomes = ['delivered', 'retrying', 'dropped', 'failed'] as const;
export const deliveryStates = ['waiting', 'retrying', 'delivered', 'dropped', 'failed'] as const;

/** One delivery (a Realtime point, or a Batch request) with its current state and its attempts: never credentials or headers. */
export const delivery = z.object({
  deliveryId: z.string(),
  webhookId: z
    .string()
    .describe('The Standard Webhooks message id (msg_...): the webhook-id header the receiver saw, the same on every attempt and on a resend.'),
  state: z.enum(deliveryStates).describe('waiting: not attempted yet; retrying: attempted, waiting for its next attempt; delivered, dropped, failed: settled.'),
  inFlight: z.boolean().describe('A deliverer is sending it right now.'),
  pointCount: z.number().int(),
  acceptedAt: z.string(),
  settledAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable().describe('While waiting or retrying: when it is due (retry_delivery sends a retrying one now).'),
  resendOf: z.string().nullable(),
  test: z.boolean(),
  attempts: z
    .array(
      z.object({
        attempt: z.number().int(),
        outcome: z.enum(deliveryOutcomes),
        responseStatus: z.number().int().nullable(),
        error: z.string().nullable(),
        responseBody: z.string().nullable(),
        durationMs: z.number(),
        startedAt: z.string(),
      }),
    )
    .describe('Its attempts, oldest first.'),
});
export type Delivery = z.output<typeof delivery>;

export interface DeliveryFilter {
  readonly states?: readonly (typeof deliveryStates)[number][] | undefined;
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
}

/** A configuration's fields as the API takes them; authPayload and customHeaders are JSON objects serialized as strings. */
export interface WebhookFields {
  readonly name?: string;
  readonly url?: string;
  readonly method?: (typeof httpMethods)[number];
  readonly deliveryMode?: (typeof deliveryModes)[number];
  readonly authType?: (typeof authTypes)[number];
  readonly authPayload?: string;
  readonly customHeaders?: string;
  readonly includeMetadataHeaders?: boolean;
  readonly includeRetryHeader?: boolean;
}

/** A scope's fields as the API takes them (a PUT replaces all of them). */
export interface ScopeFields {
  readonly scopeLevel: (typeof scopeLevels)[number];
  readonly connectionTag?: string | null;
  readonly measurement?: string | null;
  readonly enabled: boolean;
}

export interface WebhookApi {
  listWebhooks(companyId: number): Promise<WebhookConfig[]>;
  getWebhook(webhookConfigId: string): Promise<WebhookConfig>;
  createWebhook(companyId: number, fields: WebhookFields): Promise<WebhookConfig>;
  updateWebhook(webhookConfigId: string, fields: WebhookFields): Promise<WebhookConfig>;
  deleteWebhook(webhookConfigId: string): Promise<void>;
  linkDevice(webhookConfigId: string, deviceId: number): Promise<DeviceLink>;
  listLinks(webhookConfigId: string): Promise<DeviceLink[]>;
  unlinkDevice(webhookConfigId: string, deviceId: number): Promise<void>;
  addScope(webhookConfigId: string, deviceId: number, fields: ScopeFields): Promise<Scope>;
  listScopes(webhookConfigId: string, deviceId: number): Promise<Scope[]>;
  updateScope(webhookConfigId: string, deviceId: number, scopeId: string, fields: ScopeFields): Promise<Scope>;
  removeScope(webhookConfigId: string, deviceId: number, scopeId: string): Promise<void>;
  /** A page of the deliveries by state, newest first, each with its attempts, and the cursor of the next page (undefined on the last). */
  listDeliveries(webhookConfigId: string, filter: DeliveryFilter): Promise<{ deliveries: Delivery[]; nextCursor: string | undefined }>;
  retryDelivery(webhookConfigId: string, deliveryId: string): Promise<{ deliveryId: string; nextAttemptAt: string }>;
  resendDelivery(webhookConfigId: string, deliveryId: string): Promise<{ deliveryId: string }>;
  /** Queues again the deliveries dropped or failed since `since` (at most 1,000 a call); how many, and whether more are left. */
  recoverDeliveries(webhookConfigId: string, since: string): Promise<{ queued: number; more: boolean }>;
  /** Whether the configuration is Active or Disabled, and when and why it was disabled. */
  getWebhookStatus(webhookConfigId: string): Promise<WebhookStatus>;
  /** Sets the status (the API's PUT needs name, url and deliveryMode: read first, the other fields kept). */
  setWebhookStatus(webhookConfigId: string, status: (typeof webhookStatuses)[number]): Promise<WebhookStatus>;
  /** Sends one test delivery of a sample point now, as a real delivery would go; what came of it. */
  sendTestDelivery(webhookConfigId: string): Promise<TestDeliveryResult>;
  /** Rotates the signing secret; until when the replaced one signs too. The new secret is dropped from the answer, never kept. */
  rotateSigningSecret(webhookConfigId: string): Promise<{ previousSecretSignsUntil: string }>;
  /** Where a person reads the configuration's signing secret: the webhook API's address of it. */
  signingSecretAddress(webhookConfigId: string): string;
  /** Sets how deliveries go (rate limit, null removing it; ordering), the other fields kept. */
  setDeliveryOptions(webhookConfigId: string, options: DeliveryOptions): Promise<WebhookStatus>;
}

/** How deliveries to a configuration go: what set_webhook_delivery_options changes (omitted: kept). */
export interface DeliveryOptions {
  readonly rateLimitPerSecond?: number | null;
  readonly ordering?: (typeof orderings)[number];
}

export const orderings = ['None', 'PerDevice'] as const;

export const webhookStatuses = ['Active', 'Disabled'] as const;

/** A configuration's endpoint health as the API shows it. */
export const webhookStatus = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  deliveryMode: z.enum(deliveryModes),
  status: z.enum(webhookStatuses),
  disabledReason: z.string().nullable(),
  disabledAt: z.string().nullable(),
  rateLimitPerSecond: z.number().int().nullable(),
  ordering: z.enum(orderings),
});
export type WebhookStatus = z.output<typeof webhookStatus>;

/** What a test delivery came to. */
export const testDeliveryResult = z.object({
  delivered: z.boolean(),
  status: z.number().int().nullable(),
  durationMs: z.number(),
  error: z.string().nullable(),
  deliveryId: z.string(),
  webhookId: z.string().describe('The Standard Webhooks message id (webhook-id header) the test was sent with.'),
});
export type TestDeliveryResult = z.output<typeof testDeliveryResult>;

const segment = encodeURIComponent;
const configPath = (webhookConfigId: string) => `/v2/webhooks/${segment(webhookConfigId)}`;
const linkPath = (webhookConfigId: string, deviceId: number) => `${configPath(webhookConfigId)}/devices/${deviceId}`;
const routesPath = (webhookConfigId: string, deviceId: number) => `${linkPath(webhookConfigId, deviceId)}/routes`;
const deliveryPath = (webhookConfigId: string, deliveryId: string) => `${configPath(webhookConfigId)}/deliveries/${segment(deliveryId)}`;

/** The `cursor` of the next page's path and query, as the API's Link header gave it. */
const cursorOf = (next: string | undefined) =>
  next === undefined ? undefined : (new URL(next, 'http://next.invalid').searchParams.get('cursor') ?? undefined);

/** The webhook API for one tool call, with that call's delegated token. */
export function webhookApi(ctx: PlatformMcpCallContext): WebhookApi {
  const client = ctx.platformApi(webhookApiPart);

  async function send<Schema extends z.ZodType>(
    schema: Schema,
    method: HttpMethod,
    path: string,
    options: PlatformRequestOptions = {},
  ): Promise<z.output<Schema>> {
    const answer = await client.request(method, path, { ...options, headers: { AuthVersion: 'V0.0.1' } });
    return shapedAnswer(schema, answer, 'the webhook API', `${method} ${path}`);
  }

  return {
    listWebhooks: (companyId) => send(z.array(webhookConfig), 'GET', '/v2/webhooks', { query: { companyId } }),
    getWebhook: (webhookConfigId) => send(webhookConfig, 'GET', configPath(webhookConfigId)),
    createWebhook: (companyId, fields) => send(webhookConfig, 'POST', '/v2/webhooks', { query: { companyId }, body: fields }),
    updateWebhook: (webhookConfigId, fields) => send(webhookConfig, 'PUT', configPath(webhookConfigId), { body: fields }),
    deleteWebhook: async (webhookConfigId) => {
      await send(z.literal(true), 'DELETE', configPath(webhookConfigId));
    },
    linkDevice: (webhookConfigId, deviceId) => send(deviceLink, 'POST', linkPath(webhookConfigId, deviceId)),
    listLinks: (webhookConfigId) => send(z.array(deviceLink), 'GET', `${configPath(webhookConfigId)}/devices`),
    unlinkDevice: async (webhookConfigId, deviceId) => {
      await send(z.unknown(), 'DELETE', linkPath(webhookConfigId, deviceId));
    },
    addScope: (webhookConfigId, deviceId, fields) => send(scope, 'POST', routesPath(webhookConfigId, deviceId), { body: fields }),
    listScopes: (webhookConfigId, deviceId) => send(z.array(scope), 'GET', routesPath(webhookConfigId, deviceId)),
    updateScope: (webhookConfigId, deviceId, scopeId, fields) =>
      send(scope, 'PUT', `${routesPath(webhookConfigId, deviceId)}/${segment(scopeId)}`, { body: fields }),
    removeScope: async (webhookConfigId, deviceId, scopeId) => {
      await send(z.unknown(), 'DELETE', `${routesPath(webhookConfigId, deviceId)}/${segment(scopeId)}`);
    },
    async listDeliveries(webhookConfigId, { states, limit, cursor }) {
      const path = `${configPath(webhookConfigId)}/deliveries/by-state`;
      const query = { state: states?.length ? states.join(',') : undefined, limit, cursor };
      const page = await client.getPage(path, { query, headers: { AuthVersion: 'V0.0.1' } });
      return { deliveries: shapedAnswer(z.array(delivery), page.body, 'the webhook API', `GET ${path}`), nextCursor: cursorOf(page.next) };
    },
    retryDelivery: (webhookConfigId, deliveryId) =>
      send(z.object({ deliveryId: z.string(), nextAttemptAt: z.string() }), 'POST', `${deliveryPath(webhookConfigId, deliveryId)}/retry`),
    resendDelivery: (webhookConfigId, deliveryId) => send(z.object({ deliveryId: z.string() }), 'POST', `${deliveryPath(webhookConfigId, deliveryId)}/resend`),
    recoverDeliveries: (webhookConfigId, since) =>
      send(z.object({ queued: z.number().int(), more: z.boolean() }), 'POST', `${configPath(webhookConfigId)}/deliveries/recover`, { body: { since } }),
    getWebhookStatus: (webhookConfigId) => send(webhookStatus, 'GET', configPath(webhookConfigId)),
    async setWebhookStatus(webhookConfigId, status) {
      const { name, url, deliveryMode } = await send(webhookStatus, 'GET', configPath(webhookConfigId));
      return send(webhookStatus, 'PUT', configPath(webhookConfigId), { body: { name, url, deliveryMode, status } });
    },
    sendTestDelivery: (webhookConfigId) => send(testDeliveryResult, 'POST', `${configPath(webhookConfigId)}/test`),
    // Read through a schema without the secret: it is stripped as the answer is read.
    rotateSigningSecret: (webhookConfigId) =>
      send(z.object({ previousSecretSignsUntil: z.string() }), 'POST', `${configPath(webhookConfigId)}/signing-secret/rotate`),
    signingSecretAddress: (webhookConfigId) => `${client.baseUrl.replace(/\/+$/, '')}${configPath(webhookConfigId)}/signing-secret`,
    async setDeliveryOptions(webhookConfigId, options) {
      const { name, url, deliveryMode } = await send(webhookStatus, 'GET', configPath(webhookConfigId));
      return send(webhookStatus, 'PUT', configPath(webhookConfigId), { body: { name, url, deliveryMode, ...options } });
    },
  };
}
