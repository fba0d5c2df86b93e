// Tools over a webhook's endpoint, for an agent asked "why does Acme get no data?" or "is our new
// endpoint set up right?": whether the configuration is Active or was disabled (by a manager, or by
// the deliverers when the endpoint answered 410 Gone or failed every attempt for a day), disabling
// or enabling it again once the endpoint is fixed, a test delivery that shows at once what the
// endpoint does with one, and how deliveries go to it (a rate limit, ordering per device). The
// same rights as the REST API: view to read, manage to change or send.
import { defineTool, type ToolDefinition } from '@platform/tool-sdk/tools';
import { z } from 'zod';
import { webhookConfigId } from './tool-inputs.ts';
import { orderings, testDeliveryResult, webhookApi, webhookStatus, webhookStatuses } from './webhook-api-client.ts';

const statusOutput = z.object({ webhook: webhookStatus });

export const getWebhookStatus = defineTool({
  name: 'get_webhook_status',
  title: 'Get a webhook’s endpoint status',
  description:
    'Shows whether a webhook configuration is Active or Disabled, and when disabled why and since when: disabled by a manager, ' +
    'or by the deliverers because the endpoint answered 410 Gone or every attempt failed for a long time (24 h by default). ' +
    'While disabled, new data points are not queued for it and what was queued waits. list_deliveries shows the attempts that led there.',
  inputSchema: z.strictObject({ webhookConfigId }),
  outputSchema: statusOutput,
  requiresPermission: 'device-overview:view',
  annotations: { readOnlyHint: true },
  handler: async (args, ctx) => ({ webhook: await webhookApi(ctx).getWebhookStatus(args.webhookConfigId) }),
});

export const setWebhookStatus = defineTool({
  name: 'set_webhook_status',
  title: 'Enable or disable a webhook',
  description:
    'Disables a webhook configuration (status Disabled: nothing new is queued for it, what is queued waits) or enables it again (status Active: ' +
    'what waited is delivered, and its failure count starts afresh). Enable a configuration the deliverers disabled only once its endpoint is fixed; ' +
    'send_test_delivery checks that first.',
  inputSchema: z.strictObject({
    webhookConfigId,
    status: z.enum(webhookStatuses).describe('Active to deliver to the endpoint, Disabled to stop.'),
  }),
  outputSchema: statusOutput,
  requiresPermission: 'device-overview:manage',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  handler: async (args, ctx) => ({ webhook: await webhookApi(ctx).setWebhookStatus(args.webhookConfigId, args.status) }),
});

export const sendTestDelivery = defineTool({
  name: 'send_test_delivery',
  title: 'Send a test delivery to a webhook’s endpoint',
  description:
    'Sends one request with a sample data point (measurement "webhook-test") to the endpoint now, exactly as a real delivery would go ' +
    '(method, headers, credentials, signature), and says whether it was delivered, the HTTP status, how long it took and why it failed. ' +
    'Also works on a disabled webhook, to check a fix before set_webhook_status enables it. It shows in list_deliveries marked as a test.',
  inputSchema: z.strictObject({ webhookConfigId }),
  outputSchema: testDeliveryResult,
  requiresPermission: 'device-overview:manage',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  handler: (args, ctx) => webhookApi(ctx).sendTestDelivery(args.webhookConfigId),
});

export const setWebhookDeliveryOptions = defineTool({
  name: 'set_webhook_delivery_options',
  title: 'Set how deliveries go to a webhook’s endpoint',
  description:
    'Sets how deliveries go to a webhook configuration’s endpoint; give only what to change. rateLimitPerSecond (1 to 10000) caps the requests a second, ' +
    'all deliverers together (a Batch request counts once; deliveries wait for their turn, they are not failed); null removes the limit: use it when an ' +
    'endpoint can take no more than so many requests a second, or answers 429. ordering PerDevice sends each device’s points one at a time in the order ' +
    'they came (for Batch, each gateway and measurement’s batches), a retrying one holding back only its own device: for a receiver that must not sort; None sends them as they come.',
  inputSchema: z.strictObject({
    webhookConfigId,
    rateLimitPerSecond: z.number().int().min(1).max(10_000).nullable().optional().describe('Requests a second at most, 1 to 10000; null removes the limit.'),
    ordering: z.enum(orderings).optional().describe('PerDevice: one delivery at a time per device, in ingest order. None: as they come (the default).'),
  }),
  outputSchema: statusOutput,
  requiresPermission: 'device-overview:manage',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  handler: async ({ webhookConfigId: id, ...options }, ctx) => ({ webhook: await webhookApi(ctx).setDeliveryOptions(id, options) }),
});

export const rotateSigningSecret = defineTool({
  name: 'rotate_signing_secret',
  title: 'Rotate a webhook’s signing secret',
  description:
    'Replaces the secret that signs a webhook configuration’s deliveries (the Standard Webhooks webhook-signature), for instance after it leaked. ' +
    'For 24 hours every delivery carries a signature by the old and by the new secret, so the receiver keeps verifying while it is switched to the new one; ' +
    'another rotation is refused (CONFLICT, saying from when) until those 24 hours are over. The answer never holds the secret: ' +
    'it says where a person with the manage right reads it (the REST API’s GET .../signing-secret).',
  inputSchema: z.strictObject({ webhookConfigId }),
  outputSchema: z.object({
    rotated: z.literal(true),
    webhookConfigId: z.string(),
    previousSecretSignsUntil: z.string().describe('Until when the replaced secret signs deliveries too; the next rotation may happen from then on.'),
    readSecretAt: z
      .string()
      .describe('GET this address of the webhook API (AuthVersion: V0.0.1, a platform API token with the manage right) to read the new secret.'),
    message: z.string(),
  }),
  requiresPermission: 'device-overview:manage',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  handler: async ({ webhookConfigId: id }, ctx) => {
    const api = webhookApi(ctx);
    const { previousSecretSignsUntil } = await api.rotateSigningSecret(id);
    const readSecretAt = api.signingSecretAddress(id);
    return {
      rotated: true as const,
      webhookConfigId: id,
      previousSecretSignsUntil,
      readSecretAt,
      message:
        `The signing secret of webhook configuration ${id} was rotated. A person with the manage right reads the new secret with GET ${readSecretAt} ` +
        `and gives it to the receiver; until ${previousSecretSignsUntil} deliveries are signed by the old secret too, so nothing is refused meanwhile.`,
    };
  },
});

export const webhookEndpointTools: readonly ToolDefinition[] = [
  getWebhookStatus,
  setWebhookStatus,
  sendTestDelivery,
  setWebhookDeliveryOptions,
  rotateSigningSecret,
];
