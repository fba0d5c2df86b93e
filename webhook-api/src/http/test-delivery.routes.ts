// POST /v2/webhooks/{id}/test: one delivery of a sample point, sent now and exactly as a real
// delivery of the configuration would go (method, headers, credentials, signature; a webhook-id of
// its own), answered once it is done, within the delivery timeouts. It is recorded in the attempt
// log as a test, is never retried, counts nothing towards the endpoint's health, and goes to a
// disabled configuration too, so a customer can check a fix before enabling it.
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { OutgoingDelivery, WebhookSender } from '../delivery/outgoing.ts';
import { messageIdPrefix, type DeliveryQueue, type TestDelivery } from '../queue/delivery-queue.ts';
import { newDeliveryId } from '../queue/delivery-ids.ts';
import type { StoredConfig } from '../store/records.ts';
import type { WebhookStore } from '../store/webhook-store.ts';
import { httpStatus } from './deliveries.schemas.ts';
import { notFound, WebhookApiError } from './errors.ts';
import { addRoutes, type DeliveryRouteSpec, type RouteHandler, type RouteTarget } from './route-spec.ts';
import { apiSchemas } from './webhooks.schemas.ts';
import { configFor } from './config-lookup.ts';

export interface TestDeliveryRouteDependencies {
  readonly store: WebhookStore;
  readonly queue: Pick<DeliveryQueue, 'recordTest'>;
  /** Sends as the deliverers do (createDeliverySender): the same timeouts, target policy and signing. */
  readonly sender: WebhookSender;
  readonly now?: () => number;
}

/** The gateway and measurement of a test delivery's envelope and sample point. */
export const testGatewayId = 'webhook-test';
export const testMeasurement = 'webhook-test';
/** The sample point's device and connection: 0 is no device's id, so a receiver cannot take it for telemetry. */
export const testDeviceId = 0;
export const testConnectionTag = 'webhook-test';

const testDeliveryResult = z
  .object({
    delivered: z.boolean().meta({ description: 'Whether the endpoint answered 2xx.' }),
    status: httpStatus.nullable().meta({ description: "The endpoint's HTTP status; null when there was no answer." }),
    durationMs: z.number().min(0).meta({ description: 'From the start of the request to its end or failure.' }),
    error: z.string().nullable().meta({ description: 'Why it was not delivered (as the attempt log says it); null when delivered.' }),
    deliveryId: z.string().meta({ description: 'The test delivery in the attempt log (marked test: true).' }),
    webhookId: z
      .string()
      .meta({ description: 'The Standard Webhooks message id (the webhook-id header) it was sent with: its own, never one of a real delivery.' }),
  })
  .register(apiSchemas, { id: 'TestDeliveryResult', description: 'What one test delivery came to.' });

export const testDeliveryRouteSpecs = [
  {
    operationId: 'sendTestDelivery',
    method: 'post',
    path: '/v2/webhooks/:id/test',
    summary:
      'Send one test delivery now: a sample point, exactly as a real delivery would go (method, headers, credentials, signature), answered once it is done; also to a disabled configuration',
    right: 'manage',
    success: { status: 200, schema: testDeliveryResult, description: 'The test was made (whether or not the endpoint took it)' },
    errors: [400, 403, 404, 429],
  },
] as const satisfies readonly DeliveryRouteSpec[];

/**
 * Test deliveries under way at once in this API process, per configuration and per company: each
 * holds a connection up to the request timeout (30 s), and the deliverers' in-flight limits do not
 * apply to them.
 */
export const testLimits = Object.freeze({ perConfig: 2, perCompany: 8 });

type OperationId = (typeof testDeliveryRouteSpecs)[number]['operationId'];

/** The sample point, as a Realtime delivery carries it; a Batch configuration gets it as a batch of one. */
export function testDelivery(config: StoredConfig, id: string, sentAt: number): OutgoingDelivery {
  const point = JSON.stringify({
    Measurement: testMeasurement,
    Fields: { value: 1 },
    Tags: { test: 'true' },
    UtcTimestamp: new Date(sentAt).toISOString(),
    DeviceId: testDeviceId,
    ConnectionTag: testConnectionTag,
  });
  return {
    configId: config.id,
    companyId: config.companyId,
    url: config.url,
    method: config.method,
    authType: config.authType,
    authPayloadEncrypted: config.authPayloadEncrypted,
    customHeaders: config.customHeaders,
    includeMetadataHeaders: config.includeMetadataHeaders,
    includeRetryHeader: config.includeRetryHeader,
    mode: config.deliveryMode,
    gatewayId: testGatewayId,
    measurement: testMeasurement,
    points: [point],
    attempt: 0,
    webhookId: `${messageIdPrefix}${id}`,
    signingSecrets: config.signingSecrets,
  };
}

const underWay = new Map<string, number>();

/** Counts a test of `config` under way until the returned function is called; refuses one past the limits. */
function startTest(config: StoredConfig, res: Response): () => void {
  const keys = [`config ${config.id}`, `company ${config.companyId}`];
  const [ofConfig = 0, ofCompany = 0] = keys.map((key) => underWay.get(key) ?? 0);
  if (ofConfig >= testLimits.perConfig || ofCompany >= testLimits.perCompany) {
    res.set('retry-after', '1');
    throw new WebhookApiError(
      'TOO_MANY_REQUESTS',
      ofConfig >= testLimits.perConfig
        ? `webhook configuration ${config.id} has ${ofConfig} test deliveries under way, the most it may; try again once one has answered`
        : `company ${config.companyId} has ${ofCompany} test deliveries under way, the most it may; try again once one has answered`,
    );
  }
  for (const key of keys) underWay.set(key, (underWay.get(key) ?? 0) + 1);
  return () => {
    for (const key of keys) {
      const left = (underWay.get(key) ?? 1) - 1;
      if (left > 0) underWay.set(key, left);
      else underWay.delete(key);
    }
  };
}

const handlers: Record<OperationId, RouteHandler<TestDeliveryRouteDependencies>> = {
  async sendTestDelivery(req, res, deps) {
    const config = await configFor(req, res, deps, 'manage');
    const done = startTest(config, res);
    try {
      await sendTest(req, res, deps, config);
    } finally {
      done();
    }
  },
};

/** Sends the test to `config`, records it and answers what it came to. */
async function sendTest(req: Request, res: Response, deps: TestDeliveryRouteDependencies, config: StoredConfig): Promise<void> {
  const id = newDeliveryId();
  const startedAt = deps.now?.() ?? Date.now();
  const outgoing = testDelivery(config, id, startedAt);
  const result = await deps.sender.send(outgoing);
  const error = result.outcome === 'delivered' ? null : result.error;
  const record: TestDelivery = {
    id,
    webhookId: outgoing.webhookId,
    configId: config.id,
    mode: config.deliveryMode,
    gatewayId: testGatewayId,
    measurement: testMeasurement,
    // One attempt only: what a real delivery would retry, a test reports as failed.
    outcome: result.outcome === 'retrying' ? 'failed' : result.outcome,
    status: result.status,
    error,
    responseBody: result.responsePrefix,
    startedAt,
    durationMs: result.durationMs,
  };
  if ((await deps.queue.recordTest(record)) === 'not-found') throw notFound(`webhook configuration ${config.id}`);
  req.log.info({ webhookConfigId: config.id, deliveryId: id, outcome: record.outcome, status: result.status }, 'test delivery');
  res.json({
    delivered: result.outcome === 'delivered',
    status: result.status,
    durationMs: result.durationMs,
    error,
    deliveryId: id,
    webhookId: outgoing.webhookId,
  });
}

export const addTestDeliveryRoutes = (target: RouteTarget, deps: TestDeliveryRouteDependencies): void => {
  addRoutes(target, testDeliveryRouteSpecs, handlers, deps);
};
