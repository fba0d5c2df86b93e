// Tools over a webhook's endpoint, for an agent asked "why does Acme get no data?": whether the
// configuration is Active or was disabled (by a manager, or by the deliverers when the endpoint
// answered 410 Gone or failed every attempt for a day), and disabling or enabling it again once the
// endpoint is fixed. The same rights as the REST API: view to read, manage to change.
import { defineTool, type ToolDefinition } from '@platform/tool-sdk/tools';
import { z } from 'zod';
import { webhookId } from './tool-inputs.ts';
import { webhookApi, webhookStatus, webhookStatuses } from './webhook-api-client.ts';

const statusOutput = z.object({ webhook: webhookStatus });

export const getWebhookStatus = defineTool({
  name: 'get_webhook_status',
  title: 'Get a webhook’s endpoint status',
  description:
    'Shows whether a webhook configuration is Active or Disabled, and when disabled why and since when: disabled by a manager, ' +
    'or by the deliverers because the endpoint answered 410 Gone or every attempt failed for a long time (24 h by default). ' +
    'While disabled, new data points are not queued for it and what was queued waits. list_deliveries shows the attempts that led there.',
  inputSchema: z.strictObject({ webhookId }),
  outputSchema: statusOutput,
  requiresPermission: 'device-overview:view',
  annotations: { readOnlyHint: true },
  handler: async (args, ctx) => ({ webhook: await webhookApi(ctx).getWebhookStatus(args.webhookId) }),
});

export const setWebhookStatus = defineTool({
  name: 'set_webhook_status',
  title: 'Enable or disable a webhook',
  description:
    'Disables a webhook configuration (status Disabled: nothing new is queued for it, what is queued waits) or enables it again (status Active: ' +
    'what waited is delivered, and its failure count starts afresh). Enable a configuration the deliverers disabled only once its endpoint is fixed; ' +
    'send_test_delivery checks that first.',
  inputSchema: z.strictObject({
    webhookId,
    status: z.enum(webhookStatuses).describe('Active to deliver to the endpoint, Disabled to stop.'),
  }),
  outputSchema: statusOutput,
  requiresPermission: 'device-overview:manage',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  handler: async (args, ctx) => ({ webhook: await webhookApi(ctx).setWebhookStatus(args.webhookId, args.status) }),
});

export const webhookEndpointTools: readonly ToolDefinition[] = [getWebhookStatus, setWebhookStatus];
