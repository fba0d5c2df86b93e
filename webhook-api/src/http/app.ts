// Builds the webhook API: request logging, the caller check, JSON bodies, the routes, the OpenAPI
// document, and one error edge that maps every failure to the API's error body; with the webhook
// feature off in the environment, one refusal of every /v2/webhooks call.
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { isPlatformError, type Logger } from '@platform/tool-sdk';
import { createRequestLogging } from '@platform/tool-sdk/internal';
import { requireCaller, type CallerCheck } from './caller-guard.ts';
import type { CredentialVault } from '../configs/credential-vault.ts';
import { addDeliveryRoutes } from './deliveries.routes.ts';
import type { DeviceDirectory } from './device-directory.ts';
import { WebhookApiError } from './errors.ts';
import { InvalidInputError } from '../configs/invalid-input.ts';
import { DuplicateKeyError, jsonBody, MalformedUtf8Error } from './json-body.ts';
import { kindOf } from './route-inputs.ts';
import { noSuchRoute } from './allowed-methods.ts';
import { defaultLimits, type WebhookLimits } from '../configs/limits.ts';
import { addIngestRoute, type IngestDependencies } from './telemetry.routes.ts';
import { createOpenApiDocument } from './openapi.ts';
import { addSigningSecretRoutes } from './signing-secret.routes.ts';
import { addTestDeliveryRoutes } from './test-delivery.routes.ts';
import type { WebhookSender } from '../delivery/outgoing.ts';
import { StoreUnavailableError } from '../store/store-unavailable.ts';
import type { DeliveryQueue } from '../queue/delivery-queue.ts';
import type { WebhookStore } from '../store/webhook-store.ts';
import { addWebhookRoutes } from './webhooks.routes.ts';
import { traceRequests } from './request-tracing.ts';
import { chain } from './middleware-chain.ts';

export interface AppDependencies {
  readonly store: WebhookStore;
  /** The delivery queue in the same database: ingest, the attempt log, resend. */
  readonly queue: DeliveryQueue;
  readonly vault: CredentialVault;
  readonly checkCaller: CallerCheck;
  readonly devices: DeviceDirectory;
  readonly logger: Logger;
  readonly publicUrl: string;
  /** Configurations per company, devices per configuration, scopes per link; the defaults when omitted. */
  readonly limits?: WebhookLimits;
  /** POST /internal/telemetry, into the delivery queue. */
  readonly ingest?: Omit<IngestDependencies, 'queue' | 'jsonBody'>;
  /** GET /metrics. */
  readonly metrics?: RequestHandler;
  /** Sends test deliveries (POST /v2/webhooks/{id}/test) as the deliverers send (createDeliverySender). */
  readonly sender: WebhookSender;
  /**
   * Default true. False (WEBHOOK_FEATURE_ENABLED=false): every /v2/webhooks call is answered
   * FEATURE_DISABLED before anything else (not a 404 that reads like a missing configuration), and
   * ingest takes points in and queues nothing.
   */
  readonly featureEnabled?: boolean;
}

/** Maps any failure to the error body: ours as they are, platform trouble as 502/503, the rest as 500. */
function toApiError(error: unknown): WebhookApiError {
  if (error instanceof WebhookApiError) return error;
  if (error instanceof InvalidInputError) return new WebhookApiError('VALIDATION_FAILED', error.message, { field: error.field, cause: error });
  if (error instanceof StoreUnavailableError) return new WebhookApiError('STORE_UNAVAILABLE', undefined, { cause: error });
  if (isPlatformError(error, 'PLATFORM_UNAVAILABLE'))
    return new WebhookApiError('PLATFORM_UNAVAILABLE', 'The platform could not be reached; try again.', { cause: error });
  if (isPlatformError(error)) return new WebhookApiError('PLATFORM_BAD_RESPONSE', 'The platform answered unexpectedly; try again later.', { cause: error });
  if (error instanceof MalformedUtf8Error) return new WebhookApiError('VALIDATION_FAILED', 'body: is not well-formed UTF-8', { field: 'body', cause: error });
  if (error instanceof DuplicateKeyError) {
    // The key is echoed only when it looks like a field name (it may be anything the client sent).
    const field = /^[A-Za-z]{1,40}$/.test(error.key) ? error.key : 'body';
    return new WebhookApiError('VALIDATION_FAILED', `${field}: is given twice`, { field, cause: error });
  }
  const bodyError = error as { type?: string; status?: number };
  if (bodyError.type === 'entity.parse.failed') {
    // Strict parsing refuses JSON that is no object or array as it refuses what is no JSON: told apart.
    const value = parsedOrUndefined((error as { body?: unknown }).body);
    const message = value === undefined ? 'body: is not valid JSON' : `body: must be a JSON object, not ${kindOf(value)}`;
    return new WebhookApiError('VALIDATION_FAILED', message, { field: 'body', cause: error });
  }
  if (bodyError.type === 'entity.too.large') {
    const limit = (error as { limit?: unknown }).limit;
    const size = typeof limit !== 'number' ? 'the limit' : limit % 1024 === 0 ? `${limit / 1024} kB` : `${limit} bytes`;
    return new WebhookApiError('PAYLOAD_TOO_LARGE', `body: is larger than ${size}`, { field: 'body', cause: error });
  }
  if (bodyError.type === 'charset.unsupported' || bodyError.type === 'encoding.unsupported') {
    return new WebhookApiError('UNSUPPORTED_MEDIA_TYPE', 'body: must be JSON in UTF-8, without a Content-Encoding', { field: 'body', cause: error });
  }
  // The router's own refusal of a path segment that is not percent-encoded UTF-8 (its message echoes the segment).
  if (bodyError.status === 400 && error instanceof URIError) {
    return new WebhookApiError('VALIDATION_FAILED', 'path: must be percent-encoded UTF-8', { field: 'path', cause: error });
  }
  if (typeof bodyError.status === 'number' && bodyError.status >= 400 && bodyError.status < 500) {
    return new WebhookApiError('VALIDATION_FAILED', 'body: could not be read', { field: 'body', cause: error });
  }
  return new WebhookApiError('INTERNAL', undefined, { cause: error });
}

/** `text` parsed as JSON, or undefined when it is none. */
function parsedOrUndefined(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function createApp(deps: AppDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(chain(createRequestLogging(deps.logger), traceRequests()));

  const openApi = createOpenApiDocument(deps.publicUrl);
  app.get('/v2/openapi.json', (_req, res) => {
    res.json(openApi);
  });
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  if (deps.metrics) app.get('/metrics', deps.metrics);
  const featureEnabled = deps.featureEnabled ?? true;
  if (deps.ingest) addIngestRoute(app, { ...deps.ingest, queue: deps.queue, jsonBody, featureEnabled });
  if (!featureEnabled) {
    app.use('/v2/webhooks', () => {
      throw new WebhookApiError('FEATURE_DISABLED');
    });
  }
  app.use('/v2/webhooks', chain(requireCaller(deps.checkCaller), ...jsonBody(64 * 1024)));
  addWebhookRoutes(app, { store: deps.store, queue: deps.queue, vault: deps.vault, devices: deps.devices, limits: deps.limits ?? defaultLimits });
  addDeliveryRoutes(app, { store: deps.store, queue: deps.queue });
  addSigningSecretRoutes(app, { store: deps.store, vault: deps.vault });
  addTestDeliveryRoutes(app, { store: deps.store, queue: deps.queue, sender: deps.sender });
  app.use(
    noSuchRoute([
      { method: 'get', path: '/v2/openapi.json' },
      { method: 'get', path: '/health' },
      ...(deps.metrics ? [{ method: 'get' as const, path: '/metrics' }] : []),
      ...(deps.ingest ? [{ method: 'post' as const, path: '/internal/telemetry' }] : []),
    ]),
  );

  const errorEdge: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) req.log.error({ err: apiError.cause ?? apiError, code: apiError.code }, 'request failed');
    if (apiError.status === 401 && !res.get('www-authenticate')) res.set('www-authenticate', 'Bearer, ApiToken');
    res.status(apiError.status).json(apiError.toBody());
  };
  app.use(errorEdge);
  return app;
}
