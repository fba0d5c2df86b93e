// Tools over a webhook's deliveries, for an agent asked "did Acme's data arrive?": its deliveries by
// state (what still waits, what each attempt came to, and when a waiting retry is due), sending a waiting delivery now,
// sending a dropped or failed one again, and all of those since a time (after an endpoint's outage),
// with progress as it goes. The same rights as the REST API: view to read, manage to act.
import { defineTool, type ToolDefinition } from '@platform/tool-sdk/tools';
import { z } from 'zod';
import { deliveryId, webhookConfigId } from './tool-inputs.ts';
import { delivery, deliveryStates, webhookApi } from './webhook-api-client.ts';

export const listDeliveries = defineTool({
  name: 'list_deliveries',
  title: 'List the deliveries of a webhook by state',
  description:
    "Lists a webhook configuration's deliveries, newest first, each with its current state and its attempts (oldest first, each with its outcome, " +
    "the endpoint's status and the start of its answer). States: waiting (not attempted yet), retrying (attempted, waiting for its next attempt; " +
    'nextAttemptAt says when), delivered, dropped, failed. states ["waiting", "retrying"] is what is still to be delivered. ' +
    'Each delivery names its webhookId: the Standard Webhooks message id (msg_...), the webhook-id header the receiver saw; not a configuration id. Page with limit and the nextCursor of the previous page.',
  inputSchema: z.strictObject({
    webhookConfigId,
    states: z
      .array(z.enum(deliveryStates))
      .min(1)
      .max(deliveryStates.length)
      .optional()
      .describe('Only deliveries in these states now; every state when omitted. ["waiting", "retrying"]: what is still to be delivered.'),
    limit: z.number().int().min(1).max(100).optional().describe('Deliveries per page, 1 to 100; 20 by default.'),
    cursor: z.string().max(512).optional().describe('The nextCursor of the previous page, to read the next one.'),
  }),
  outputSchema: z.object({
    deliveries: z.array(delivery),
    nextCursor: z.string().nullable().describe('Pass it as cursor for the next page; null on the last page.'),
  }),
  requiresPermission: 'device-overview:view',
  annotations: { readOnlyHint: true },
  handler: async ({ webhookConfigId: id, ...filter }, ctx) => {
    const page = await webhookApi(ctx).listDeliveries(id, filter);
    return { deliveries: page.deliveries, nextCursor: page.nextCursor ?? null };
  },
});

export const retryDelivery = defineTool({
  name: 'retry_delivery',
  title: 'Send a waiting delivery now',
  description:
    'Sends a delivery that is waiting for its retry now instead of when its schedule says (list_deliveries shows nextAttemptAt on such a delivery). ' +
    'Its attempt count goes on. Fails with 409 while it is being sent, and once it was delivered, dropped or failed (use resend_delivery for those).',
  inputSchema: z.strictObject({ webhookConfigId, deliveryId }),
  outputSchema: z.object({ deliveryId: z.string(), nextAttemptAt: z.string() }),
  requiresPermission: 'device-overview:manage',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  handler: (args, ctx) => webhookApi(ctx).retryDelivery(args.webhookConfigId, args.deliveryId),
});

export const resendDelivery = defineTool({
  name: 'resend_delivery',
  title: 'Send a dropped or failed delivery again',
  description:
    'Queues a dropped or failed delivery again as a new delivery with the same points (of devices still linked), which the receiver gets with the same webhook-id. ' +
    'Fails with 409 for a delivered one, one still queued, or one already being sent again.',
  inputSchema: z.strictObject({ webhookConfigId, deliveryId }),
  outputSchema: z.object({ deliveryId: z.string().describe('The new delivery.') }),
  requiresPermission: 'device-overview:manage',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  handler: (args, ctx) => webhookApi(ctx).resendDelivery(args.webhookConfigId, args.deliveryId),
});

/** Rounds of the API's recovery (each queues at most 1,000) one call goes through; the agent calls again for the rest. */
const maxRounds = 10;

export const resendFailedDeliveries = defineTool({
  name: 'resend_failed_deliveries',
  title: 'Send failed deliveries again since a time',
  description:
    'After an endpoint was down or misconfigured: queues again every delivery of a webhook configuration that was dropped or failed since a time, ' +
    'each as a new delivery with the same points and webhook-id (the webhook API recovers them in rounds of 1,000, oldest first; ' +
    `after ${maxRounds} rounds, more says to call again). Reports progress after each round; deliveries already queued again are not queued twice.`,
  inputSchema: z.strictObject({
    webhookConfigId,
    since: z.iso.datetime({ offset: true }).describe('Deliveries dropped or failed at or after this ISO 8601 time, such as 2026-11-22T12:00:00Z.'),
  }),
  outputSchema: z.object({
    queued: z.number().int().describe('Deliveries queued again by this call.'),
    more: z.boolean().describe('True when more are left than this call queues: call again.'),
  }),
  requiresPermission: 'device-overview:manage',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  // Up to 10 rounds of the API's recovery: a client may run it as an MCP task and poll it.
  execution: { taskSupport: 'optional' },
  handler: async ({ webhookConfigId: id, since }, ctx) => {
    const api = webhookApi(ctx);
    let queued = 0;
    let more = true;
    for (let round = 0; round < maxRounds && more; round += 1) {
      ctx.signal.throwIfAborted();
      const recovered = await api.recoverDeliveries(id, since);
      queued += recovered.queued;
      more = recovered.more;
      ctx.progress(round + 1, more ? undefined : round + 1, `Queued ${queued} deliveries again`);
    }
    return { queued, more };
  },
});

export const deliveryTools: readonly ToolDefinition[] = [listDeliveries, retryDelivery, resendDelivery, resendFailedDeliveries];
