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

/** One line of a configuration's attempt log: never credentials or headers. */
export const deliveryAttempt = z.object({
  deliveryId: z.string(),
  webhookId: z.string(),
  attempt: z.number().int(),
  outcome: z.enum(deliveryOutcomes),
  responseStatus: z.number().int().nullable(),
  error: z.string().nullable(),
  responseBody: z.string().nullable(),
  durationMs: z.number(),
  startedAt: z.string(),
  pointCount: z.number().int(),
  nextAttemptAt: z.string().nullable(),
});
export type DeliveryAttempt = z.output<typeof deliveryAttempt>;

export interface AttemptFilter {
  readonly outcome?: (typeof deliveryOutcomes)[number] | undefined;
  readonly since?: string | undefined;
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
  getWebhook(webhookId: string): Promise<WebhookConfig>;
  createWebhook(companyId: number, fields: WebhookFields): Promise<WebhookConfig>;
  updateWebhook(webhookId: string, fields: WebhookFields): Promise<WebhookConfig>;
  deleteWebhook(webhookId: string): Promise<void>;
  linkDevice(webhookId: string, deviceId: number): Promise<DeviceLink>;
  listLinks(webhookId: string): Promise<DeviceLink[]>;
  unlinkDevice(webhookId: string, deviceId: number): Promise<void>;
  addScope(webhookId: string, deviceId: number, fields: ScopeFields): Promise<Scope>;
  listScopes(webhookId: string, deviceId: number): Promise<Scope[]>;
  updateScope(webhookId: string, deviceId: number, scopeId: string, fields: ScopeFields): Promise<Scope>;
  removeScope(webhookId: string, deviceId: number, scopeId: string): Promise<void>;
  /** A page of the attempt log, newest first, and the cursor of the next page (undefined on the last). */
  listAttempts(webhookId: string, filter: AttemptFilter): Promise<{ attempts: DeliveryAttempt[]; nextCursor: string | undefined }>;
  retryDelivery(webhookId: string, deliveryId: string): Promise<{ deliveryId: string; nextAttemptAt: string }>;
  resendDelivery(webhookId: string, deliveryId: string): Promise<{ deliveryId: string }>;
  /** Queues again the deliveries dropped or failed since `since` (at most 1,000 a call); how many, and whether more are left. */
  recoverDeliveries(webhookId: string, since: string): Promise<{ queued: number; more: boolean }>;
  /** Whether the configuration is Active or Disabled, and when and why it was disabled. */
  getWebhookStatus(webhookId: string): Promise<WebhookStatus>;
  /** Sets the status (the API's PUT needs name, url and deliveryMode: read first, the other fields kept). */
  setWebhookStatus(webhookId: string, status: (typeof webhookStatuses)[number]): Promise<WebhookStatus>;
  /** Sends one test delivery of a sample point now, as a real delivery would go; what came of it. */
  sendTestDelivery(webhookId: string): Promise<TestDeliveryResult>;
  /** Sets how deliveries go (rate limit, null removing it; ordering), the other fields kept. */
  setDeliveryOptions(webhookId: string, options: DeliveryOptions): Promise<WebhookStatus>;
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
  webhookId: z.string(),
});
export type TestDeliveryResult = z.output<typeof testDeliveryResult>;

const segment = encodeURIComponent;
const configPath = (webhookId: string) => `/v2/webhooks/${segment(webhookId)}`;
const linkPath = (webhookId: string, deviceId: number) => `${configPath(webhookId)}/devices/${deviceId}`;
const routesPath = (webhookId: string, deviceId: number) => `${linkPath(webhookId, deviceId)}/routes`;
const deliveryPath = (webhookId: string, deliveryId: string) => `${configPath(webhookId)}/deliveries/${segment(deliveryId)}`;

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
    getWebhook: (webhookId) => send(webhookConfig, 'GET', configPath(webhookId)),
    createWebhook: (companyId, fields) => send(webhookConfig, 'POST', '/v2/webhooks', { query: { companyId }, body: fields }),
    updateWebhook: (webhookId, fields) => send(webhookConfig, 'PUT', configPath(webhookId), { body: fields }),
    deleteWebhook: async (webhookId) => {
      await send(z.literal(true), 'DELETE', configPath(webhookId));
    },
    linkDevice: (webhookId, deviceId) => send(deviceLink, 'POST', linkPath(webhookId, deviceId)),
    listLinks: (webhookId) => send(z.array(deviceLink), 'GET', `${configPath(webhookId)}/devices`),
    unlinkDevice: async (webhookId, deviceId) => {
      await send(z.unknown(), 'DELETE', linkPath(webhookId, deviceId));
    },
    addScope: (webhookId, deviceId, fields) => send(scope, 'POST', routesPath(webhookId, deviceId), { body: fields }),
    listScopes: (webhookId, deviceId) => send(z.array(scope), 'GET', routesPath(webhookId, deviceId)),
    updateScope: (webhookId, deviceId, scopeId, fields) => send(scope, 'PUT', `${routesPath(webhookId, deviceId)}/${segment(scopeId)}`, { body: fields }),
    removeScope: async (webhookId, deviceId, scopeId) => {
      await send(z.unknown(), 'DELETE', `${routesPath(webhookId, deviceId)}/${segment(scopeId)}`);
    },
    async listAttempts(webhookId, filter) {
      const path = `${configPath(webhookId)}/deliveries`;
      const page = await client.getPage(path, { query: { ...filter }, headers: { AuthVersion: 'V0.0.1' } });
      return { attempts: shapedAnswer(z.array(deliveryAttempt), page.body, 'the webhook API', `GET ${path}`), nextCursor: cursorOf(page.next) };
    },
    retryDelivery: (webhookId, deliveryId) =>
      send(z.object({ deliveryId: z.string(), nextAttemptAt: z.string() }), 'POST', `${deliveryPath(webhookId, deliveryId)}/retry`),
    resendDelivery: (webhookId, deliveryId) => send(z.object({ deliveryId: z.string() }), 'POST', `${deliveryPath(webhookId, deliveryId)}/resend`),
    recoverDeliveries: (webhookId, since) =>
      send(z.object({ queued: z.number().int(), more: z.boolean() }), 'POST', `${configPath(webhookId)}/deliveries/recover`, { body: { since } }),
    getWebhookStatus: (webhookId) => send(webhookStatus, 'GET', configPath(webhookId)),
    async setWebhookStatus(webhookId, status) {
      const { name, url, deliveryMode } = await send(webhookStatus, 'GET', configPath(webhookId));
      return send(webhookStatus, 'PUT', configPath(webhookId), { body: { name, url, deliveryMode, status } });
    },
    sendTestDelivery: (webhookId) => send(testDeliveryResult, 'POST', `${configPath(webhookId)}/test`),
    async setDeliveryOptions(webhookId, options) {
      const { name, url, deliveryMode } = await send(webhookStatus, 'GET', configPath(webhookId));
      return send(webhookStatus, 'PUT', configPath(webhookId), { body: { name, url, deliveryMode, ...options } });
    },
  };
}
