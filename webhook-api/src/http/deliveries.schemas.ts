// The shapes of the delivery endpoints (the attempt log, a resend) as zod schemas, named in the
// API's registry so the OpenAPI document describes them.
import { z } from 'zod';
import { apiSchemas, oneOf } from './webhooks.schemas.ts';
import { deliveryOutcomes, type DeliveryOutcome } from '../queue/delivery-queue.ts';
import { deliveryStates, type DeliveryState } from '../queue/delivery-states.ts';

const outcomes = deliveryOutcomes as readonly [DeliveryOutcome, ...DeliveryOutcome[]];

/** An HTTP status an endpoint answered. */
export const httpStatus = z.number().int().min(100).max(599);

/** GET .../deliveries: optional filters; `limit` and `cursor` are read by the paging. */
export const deliveriesQuery = z.object({
  outcome: oneOf(outcomes).optional().meta({ description: 'Only attempts that came to this outcome.' }),
  since: z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 timestamp, such as 2026-11-22T12:00:00Z' })
    .optional()
    .meta({ description: 'Only attempts started at or after this time.' }),
});

export const deliveryAttempt = z
  .object({
    deliveryId: z.string(),
    webhookId: z.string().meta({
      description:
        'The Standard Webhooks message id (msg_...): the webhook-id header the delivery is sent with, the same on every attempt and on a resend of it.',
    }),
    attempt: z.number().int().min(0).meta({ description: 'Attempts made before this one: the X-Webhook-Retry-Count it was sent with.' }),
    outcome: z.enum(outcomes),
    responseStatus: httpStatus.nullable().meta({ description: "The endpoint's HTTP status; null when there was no answer." }),
    error: z.string().nullable().meta({ description: 'Why the attempt did not deliver, when it did not.' }),
    responseBody: z.string().nullable().meta({ description: 'The start of what the endpoint answered, cut short.' }),
    durationMs: z.number().min(0),
    startedAt: z.iso.datetime(),
    pointCount: z.number().int().min(1).meta({ description: 'Data points the delivery carried.' }),
    nextAttemptAt: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'On the latest attempt of a delivery that waits for its retry: when it is due (POST .../retry sends it now); otherwise null.' }),
    test: z.boolean().meta({ description: 'A test delivery (POST /v2/webhooks/{id}/test) with a sample point, not telemetry.' }),
  })
  .register(apiSchemas, {
    id: 'DeliveryAttempt',
    description: 'One attempt of the attempt log; never carries credentials or the headers sent.',
  });

export type DeliveryAttempt = z.output<typeof deliveryAttempt>;

const states = deliveryStates as readonly [DeliveryState, ...DeliveryState[]];
const stateList = `one or more of ${states.join(', ')}, separated by commas`;

/** GET .../deliveries/by-state: the states to list (all when omitted); `limit` and `cursor` are read by the paging. */
export const deliveryStatesQuery = z.object({
  state: z
    .string({ error: `must be ${stateList}` })
    .transform((text, context) => {
      const picked = text.split(',').map((item) => item.trim());
      const unknown = picked.find((item) => !(states as readonly string[]).includes(item));
      if (unknown === undefined) return [...new Set(picked)] as DeliveryState[];
      context.addIssue({ code: 'custom', message: `must be ${stateList}; "${unknown.slice(0, 40)}" is none of them` });
      return z.NEVER;
    })
    .optional()
    .meta({
      description: `Only deliveries in these states now: ${stateList} (waiting,retrying is what is still to be delivered). Every state when omitted.`,
      // What is sent, for the document: the transform's output (a list) is not.
      type: 'string',
      pattern: `^(${states.join('|')})(,(${states.join('|')}))*$`,
      examples: ['waiting,retrying'],
    }),
});

const attemptLine = z
  .object({
    attempt: z.number().int().min(0).meta({ description: 'Attempts made before this one: the X-Webhook-Retry-Count it was sent with.' }),
    outcome: z.enum(outcomes),
    responseStatus: httpStatus.nullable().meta({ description: "The endpoint's HTTP status; null when there was no answer." }),
    error: z.string().nullable(),
    responseBody: z.string().nullable().meta({ description: 'The start of what the endpoint answered, cut short.' }),
    durationMs: z.number().min(0),
    startedAt: z.iso.datetime(),
  })
  .register(apiSchemas, { id: 'DeliveryAttemptLine', description: "One attempt of a delivery, as the delivery's attempts list it." });

export const deliveryRecord = z
  .object({
    deliveryId: z.string(),
    webhookId: z
      .string()
      .meta({ description: 'The Standard Webhooks message id (msg_...): the webhook-id header it is sent with, kept on retries and resends.' }),
    state: z.enum(states).meta({
      description:
        'waiting: queued, not attempted yet (due, being sent, behind an earlier delivery of its device, or waiting for a disabled endpoint); retrying: attempted, waiting for (or making) its next attempt; delivered, dropped, failed: settled.',
    }),
    inFlight: z.boolean().meta({ description: 'A deliverer is sending it right now.' }),
    pointCount: z.number().int().min(0).meta({ description: 'Data points it carries.' }),
    acceptedAt: z.iso.datetime().meta({ description: 'When it was queued.' }),
    settledAt: z.iso.datetime().nullable().meta({ description: 'When it was delivered, dropped or failed; null while waiting or retrying.' }),
    nextAttemptAt: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'While waiting or retrying: when it is due (POST .../retry sends a retrying one now); otherwise null.' }),
    resendOf: z.string().nullable().meta({ description: 'The delivery it sends again (a resend or a recovery); null otherwise.' }),
    test: z.boolean().meta({ description: 'A test delivery (POST /v2/webhooks/{id}/test).' }),
    attempts: z.array(attemptLine).meta({ description: 'Its attempts, oldest first.' }),
  })
  .register(apiSchemas, { id: 'Delivery', description: 'One delivery (a Realtime point, or a Batch request) with its current state and its attempts.' });

export type DeliveryRecordAnswer = z.output<typeof deliveryRecord>;

export const retriedDelivery = z
  .object({
    deliveryId: z.string(),
    nextAttemptAt: z.iso.datetime().meta({ description: 'Now: the delivery is due, and a deliverer takes it as soon as it has a free slot.' }),
  })
  .register(apiSchemas, { id: 'RetriedDelivery' });

export const resentDelivery = z
  .object({ deliveryId: z.string().meta({ description: 'The new delivery, queued with the points of the one sent again.' }) })
  .register(apiSchemas, { id: 'ResentDelivery' });

/** How many deliveries one recovery queues at most: a bounded transaction; `more` says to call again. */
export const maxRecoveredPerCall = 1000;

export const recoverInput = z
  .strictObject({
    since: z.iso
      .datetime({ offset: true, error: (i) => (i.input === undefined ? 'is required' : 'must be an ISO 8601 timestamp, such as 2026-11-22T12:00:00Z') })
      .meta({ description: 'Failed and dropped deliveries settled at or after this time are queued again.' }),
  })
  .register(apiSchemas, { id: 'RecoverInput' });

export const recoveredDeliveries = z
  .object({
    queued: z
      .number()
      .int()
      .min(0)
      .max(maxRecoveredPerCall)
      .meta({ description: 'Deliveries queued again, each a new delivery with the points and webhook-id of the one it sends again.' }),
    more: z.boolean().meta({
      description: `Whether more failed or dropped deliveries since then are left than one call queues (${maxRecoveredPerCall}): call again to queue them.`,
    }),
  })
  .register(apiSchemas, { id: 'RecoveredDeliveries' });
