// Tools over a webhook's deliveries, for an agent asked "did Acme's data arrive?": the attempt log
// (what each attempt came to, and when a waiting retry is due), sending a waiting delivery now,
// sending a dropped or failed one again, and all of those since a time (after an endpoint's outage),
// with progress as it goes. The same rights as the REST API: view to read, manage to act.
import { defineTool, ToolError, type ToolDefinition } from '@platform/tool-sdk/tools';
import { z } from 'zod';
import { deliveryId, webhookId } from './tool-inputs.ts';
import { deliveryAttempt, deliveryOutcomes, webhookApi } from './webhook-api-client.ts';

export const listDeliveries = defineTool({
  name: 'list_deliveries',
  title: 'List delivery attempts of a webhook',
  description:
    "Lists a webhook configuration's attempt log, newest first: each attempt of each delivery with its outcome (delivered, retrying, dropped, failed), " +
    "the endpoint's status and the start of its answer, and, on a delivery waiting for its retry, when that is due (nextAttemptAt). " +
    'Filter by outcome and by start time (since); page with limit and the nextCursor of the previous page.',
  inputSchema: z.strictObject({
    webhookId,
    outcome: z.enum(deliveryOutcomes).optional().describe('Only attempts that came to this outcome.'),
    since: z.iso.datetime({ offset: true }).optional().describe('Only attempts started at or after this ISO 8601 time, such as 2026-11-22T12:00:00Z.'),
    limit: z.number().int().min(1).max(100).optional().describe('Attempts per page, 1 to 100; 50 by default.'),
    cursor: z.string().max(512).optional().describe('The nextCursor of the previous page, to read the next one.'),
  }),
  outputSchema: z.object({
    attempts: z.array(deliveryAttempt),
    nextCursor: z.string().nullable().describe('Pass it as cursor for the next page; null on the last page.'),
  }),
  requiresPermission: 'device-overview:view',
  annotations: { readOnlyHint: true },
  handler: async ({ webhookId: id, ...filter }, ctx) => {
    const page = await webhookApi(ctx).listAttempts(id, filter);
    return { attempts: page.attempts, nextCursor: page.nextCursor ?? null };
  },
});

export const retryDelivery = defineTool({
  name: 'retry_delivery',
  title: 'Send a waiting delivery now',
  description:
    'Sends a delivery that is waiting for its retry now instead of when its schedule says (list_deliveries shows nextAttemptAt on such a delivery). ' +
    'Its attempt count goes on. Fails with 409 while it is being sent, and once it was delivered, dropped or failed (use resend_delivery for those).',
  inputSchema: z.strictObject({ webhookId, deliveryId }),
  outputSchema: z.object({ deliveryId: z.string(), nextAttemptAt: z.string() }),
  requiresPermission: 'device-overview:manage',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  handler: (args, ctx) => webhookApi(ctx).retryDelivery(args.webhookId, args.deliveryId),
});

export const resendDelivery = defineTool({
  name: 'resend_delivery',
  title: 'Send a dropped or failed delivery again',
  description:
    'Queues a dropped or failed delivery again as a new delivery with the same points (of devices still linked), which the receiver gets with the same webhook-id. ' +
    'Fails with 409 for a delivered one, one still queued, or one already being sent again.',
  inputSchema: z.strictObject({ webhookId, deliveryId }),
  outputSchema: z.object({ deliveryId: z.string().describe('The new delivery.') }),
  requiresPermission: 'device-overview:manage',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  handler: (args, ctx) => webhookApi(ctx).resendDelivery(args.webhookId, args.deliveryId),
});

/** Most deliveries one recovery sends again; the agent calls it again for the rest. */
const maxRecovered = 500;
/** Attempts read per page while finding what to send again. */
const pageSize = 100;

export const resendFailedDeliveries = defineTool({
  name: 'resend_failed_deliveries',
  title: 'Send failed deliveries again since a time',
  description:
    'After an endpoint was down or misconfigured: queues again every delivery of a webhook configuration that was dropped or failed since a time, ' +
    `each as a new delivery with the same points and webhook-id (at most ${maxRecovered} a call, oldest first; call again for more). ` +
    'Reports progress as it goes; deliveries already sent again are skipped.',
  inputSchema: z.strictObject({
    webhookId,
    since: z.iso.datetime({ offset: true }).describe('Deliveries whose failing attempt started at or after this ISO 8601 time, such as 2026-11-22T12:00:00Z.'),
    limit: z.number().int().min(1).max(maxRecovered).optional().describe(`How many to send again at most, 1 to ${maxRecovered}; ${maxRecovered} by default.`),
  }),
  outputSchema: z.object({
    found: z.number().int().describe('Dropped or failed deliveries found since then (up to the limit).'),
    resent: z.array(z.object({ deliveryId: z.string(), newDeliveryId: z.string() })),
    skipped: z.number().int().describe('Deliveries already sent again, or no longer possible to send again.'),
    more: z.boolean().describe('True when more remain past the limit: call again.'),
  }),
  requiresPermission: 'device-overview:manage',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  handler: async ({ webhookId: id, since, limit = maxRecovered }, ctx) => {
    const api = webhookApi(ctx);
    // Each delivery once, by the attempt that ended it (the log is newest first).
    const found = new Set<string>();
    let more = false;
    for (const outcome of ['failed', 'dropped'] as const) {
      let cursor: string | undefined;
      do {
        const page = await api.listAttempts(id, { outcome, since, limit: pageSize, cursor });
        for (const attempt of page.attempts) {
          if (found.size >= limit) more = true;
          else found.add(attempt.deliveryId);
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined && !more);
    }
    const deliveries = [...found].reverse();
    ctx.progress(0, deliveries.length, `Found ${deliveries.length} deliveries to send again`);
    const resent: { deliveryId: string; newDeliveryId: string }[] = [];
    let skipped = 0;
    for (const [index, deliveryId] of deliveries.entries()) {
      ctx.signal.throwIfAborted();
      try {
        resent.push({ deliveryId, newDeliveryId: (await api.resendDelivery(id, deliveryId)).deliveryId });
      } catch (error) {
        // Already sent again, or no longer sendable (its devices unlinked): the others go on.
        if (!(error instanceof ToolError) || !['CONFLICT', 'NOT_FOUND'].includes(error.code)) throw error;
        skipped += 1;
      }
      ctx.progress(index + 1, deliveries.length, `Sent ${resent.length} of ${deliveries.length} again`);
    }
    return { found: deliveries.length, resent, skipped, more };
  },
});

export const deliveryTools: readonly ToolDefinition[] = [listDeliveries, retryDelivery, resendDelivery, resendFailedDeliveries];
