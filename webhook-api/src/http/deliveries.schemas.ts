// The shapes of the delivery endpoints (the attempt log, a resend) as zod schemas, named in the
// API's registry so the OpenAPI document describes them.
import { z } from 'zod';
import { apiSchemas } from './webhooks.schemas.ts';
import { deliveryOutcomes, type DeliveryOutcome } from '../queue/delivery-queue.ts';

const outcomes = deliveryOutcomes as readonly [DeliveryOutcome, ...DeliveryOutcome[]];

/** GET .../deliveries: an optional filter; `limit` and `cursor` are read by the paging. */
export const deliveriesQuery = z.object({
  outcome: z
    .enum(outcomes, { error: `must be one of ${outcomes.join(', ')}` })
    .optional()
    .meta({ description: 'Only attempts that came to this outcome.' }),
});

export const deliveryAttempt = z
  .object({
    deliveryId: z.string(),
    attempt: z.number().int().meta({ description: 'Attempts made before this one: the X-Webhook-Retry-Count it was sent with.' }),
    outcome: z.enum(outcomes),
    responseStatus: z.number().int().nullable().meta({ description: "The endpoint's HTTP status; null when there was no answer." }),
    error: z.string().nullable().meta({ description: 'Why the attempt did not deliver, when it did not.' }),
    responseBody: z.string().nullable().meta({ description: 'The start of what the endpoint answered, cut short.' }),
    durationMs: z.number(),
    startedAt: z.iso.datetime(),
    pointCount: z.number().int().meta({ description: 'Data points the delivery carried.' }),
  })
  .register(apiSchemas, {
    id: 'DeliveryAttempt',
    description: 'One attempt of the attempt log; never carries credentials or the headers sent.',
  });

export type DeliveryAttempt = z.output<typeof deliveryAttempt>;

export const resentDelivery = z
  .object({ deliveryId: z.string().meta({ description: 'The new delivery, queued with the points of the one sent again.' }) })
  .register(apiSchemas, { id: 'ResentDelivery' });
