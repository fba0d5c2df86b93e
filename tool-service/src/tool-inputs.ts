// The ids the tools take, each checked and described once for the agent that fills them in.
import { z } from 'zod';

export const companyId = z.number().int().positive().describe('The company id, as list_companies or whoami shows it.');

export const deviceId = z.number().int().positive().describe('The device id, as list_devices shows it.');

/** Configuration and scope ids are ids the webhook API generated: letters, digits, `_` and `-`. */
const generatedId = (what: string) => z.string().regex(/^[\w-]{1,128}$/, `must be ${what}: 1 to 128 letters, digits, "_" or "-"`);

export const webhookConfigId = generatedId('a webhook configuration id').describe(
  "The webhook configuration id, as list_webhooks or create_webhook returns it (the REST API's {id} and webhookConfigId); not a msg_ message id.",
);

export const scopeId = generatedId('a scope id').describe('The scope id, as list_scopes or add_scope returns it.');

export const deliveryId = generatedId('a delivery id').describe('The delivery id, as list_deliveries shows it.');
