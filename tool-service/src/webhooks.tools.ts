// Tools over webhook configurations: list, get, create, update and delete. A configuration says
// where a company's device telemetry is pushed and how; devices and scopes are linked to it by the
// device-link and scope tools. Credentials go in, never come back out.
import { defineTool, type ToolDefinition } from '@platform/tool-sdk/tools';
import { z } from 'zod';
import { companyId, webhookConfigId } from './tool-inputs.ts';
import { authTypes, deliveryModes, httpMethods, webhookApi, webhookConfig, type WebhookFields } from './webhook-api-client.ts';

const view = 'device-overview:view';
const manage = 'device-overview:manage';

const field = {
  name: z.string().describe('A name people recognise the configuration by; at most 255 characters.'),
  url: z.string().describe('The endpoint that receives the telemetry (HTTPS advised); at most 2048 characters.'),
  method: z.enum(httpMethods).describe('The HTTP method of each delivery.'),
  deliveryMode: z.enum(deliveryModes).describe('Realtime: one request per data point. Batch: the points of one measurement grouped into one request.'),
  authType: z.enum(authTypes).describe('How each delivery authenticates at the endpoint. Every type but None needs its credentials in authPayload.'),
  authPayload: z
    // Credentials are strings; Custom's headers a map of them. Nothing deeper is ever a credential.
    .record(z.string(), z.union([z.string(), z.record(z.string(), z.string())]))
    .describe(
      'The credentials for authType, as an object: Bearer {"token": ...}; ApiKey {"apiKeyValue": ...}; Basic {"username": ..., "password": ...}; ' +
        'Custom {"headers": {"<header name>": "<value>"}}. Stored encrypted and never shown again, not even to you.',
    ),
  customHeaders: z
    .record(z.string(), z.string())
    .describe('Static headers added to every delivery, as header name to value. Shown in clear, so no credentials here: use authType and authPayload.'),
  includeMetadataHeaders: z.boolean().describe('Whether deliveries carry User-Agent and X-Webhook-Timestamp.'),
  includeRetryHeader: z.boolean().describe('Whether deliveries carry X-Webhook-Retry-Count.'),
};

/** A JSON object as the API takes it: serialized into a string. */
const serialized = (value: Record<string, unknown> | undefined) => (value === undefined ? undefined : JSON.stringify(value));

const oneWebhook = z.object({ webhook: webhookConfig });

export const listWebhooks = defineTool({
  name: 'list_webhooks',
  title: 'List webhooks',
  description:
    "Lists a company's webhook configurations (where its device telemetry is pushed), without credentials. " +
    'Use it to find a webhook id for the other webhook tools; list_companies gives the company ids.',
  inputSchema: z.strictObject({ companyId }),
  outputSchema: z.object({ webhooks: z.array(webhookConfig) }),
  requiresPermission: view,
  annotations: { readOnlyHint: true },
  handler: async (args, ctx) => ({ webhooks: await webhookApi(ctx).listWebhooks(args.companyId) }),
});

export const getWebhook = defineTool({
  name: 'get_webhook',
  title: 'Get a webhook',
  description: 'Shows one webhook configuration by its id: endpoint, method, delivery mode, auth type and headers. Credentials are never shown.',
  inputSchema: z.strictObject({ webhookConfigId }),
  outputSchema: oneWebhook,
  requiresPermission: view,
  annotations: { readOnlyHint: true },
  handler: async (args, ctx) => ({ webhook: await webhookApi(ctx).getWebhook(args.webhookConfigId) }),
});

export const createWebhook = defineTool({
  name: 'create_webhook',
  title: 'Create a webhook',
  description:
    'Creates a webhook configuration for a company: the endpoint its device telemetry is pushed to, and how. No data flows until a device is linked (link_device) and the link has an enabled scope (add_scope). ' +
    'Returns the configuration with its new id, without credentials.',
  inputSchema: z.strictObject({
    companyId,
    name: field.name,
    url: field.url,
    deliveryMode: field.deliveryMode,
    method: field.method.optional().describe(`${field.method.description ?? ''} POST when not given.`),
    authType: field.authType.optional().describe(`${field.authType.description ?? ''} None when not given.`),
    authPayload: field.authPayload.optional(),
    customHeaders: field.customHeaders.optional(),
    includeMetadataHeaders: field.includeMetadataHeaders.optional().describe(`${field.includeMetadataHeaders.description ?? ''} True when not given.`),
    includeRetryHeader: field.includeRetryHeader.optional().describe(`${field.includeRetryHeader.description ?? ''} True when not given.`),
  }),
  outputSchema: oneWebhook,
  requiresPermission: manage,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  handler: async ({ companyId: company, authPayload, customHeaders, ...fields }, ctx) => ({
    webhook: await webhookApi(ctx).createWebhook(company, { ...fields, authPayload: serialized(authPayload), customHeaders: serialized(customHeaders) }),
  }),
});

export const updateWebhook = defineTool({
  name: 'update_webhook',
  title: 'Update a webhook',
  description:
    'Changes a webhook configuration: give only the fields to change; the others keep their values. ' +
    'authPayload replaces the stored credentials (null removes them); customHeaders replaces the headers (null removes them). Takes effect without any device restart.',
  inputSchema: z.strictObject({
    webhookConfigId,
    name: field.name.optional(),
    url: field.url.optional(),
    deliveryMode: field.deliveryMode.optional(),
    method: field.method.optional(),
    authType: field.authType.optional(),
    authPayload: field.authPayload.nullable().optional(),
    customHeaders: field.customHeaders.nullable().optional(),
    includeMetadataHeaders: field.includeMetadataHeaders.optional(),
    includeRetryHeader: field.includeRetryHeader.optional(),
  }),
  outputSchema: oneWebhook,
  requiresPermission: manage,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  handler: async ({ webhookConfigId: id, authPayload, customHeaders, ...changes }, ctx) => {
    const api = webhookApi(ctx);
    // The API's PUT needs name, url and deliveryMode every time; what the agent left out is read first.
    const needsCurrent = changes.name === undefined || changes.url === undefined || changes.deliveryMode === undefined;
    const current = needsCurrent ? await api.getWebhook(id) : undefined;
    const fields: WebhookFields = {
      ...changes,
      name: changes.name ?? current?.name,
      url: changes.url ?? current?.url,
      deliveryMode: changes.deliveryMode ?? current?.deliveryMode,
      // The API keeps a stored value when it gets none, and clears it on an empty string.
      authPayload: authPayload === null ? '' : serialized(authPayload),
      customHeaders: customHeaders === null ? '' : serialized(customHeaders),
    };
    return { webhook: await api.updateWebhook(id, fields) };
  },
});

export const deleteWebhook = defineTool({
  name: 'delete_webhook',
  title: 'Delete a webhook',
  description:
    'Deletes a webhook configuration with its device links and scopes. Delivery stops at once for every linked device; this cannot be undone. ' +
    'Its delivery history stays readable with list_deliveries (what was still waiting shows as failed) until retention removes it, 7 days by default. ' +
    'The person is asked to confirm first (naming the configuration and its linked devices) when their client can ask; deleted is false when they do not.',
  inputSchema: z.strictObject({ webhookConfigId }),
  outputSchema: z.object({
    deleted: z.boolean(),
    webhookConfigId: z.string(),
    reason: z.string().optional().describe('Why it was not deleted, when it was not.'),
  }),
  requiresPermission: manage,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  handler: async (args, ctx) => {
    const api = webhookApi(ctx);
    if (ctx.client.elicitation.form) {
      // Asked before anything changes: the tool runs again from the start with the answer.
      const [webhook, links] = await Promise.all([api.getWebhook(args.webhookConfigId), api.listLinks(args.webhookConfigId)]);
      // Refused before the person is asked to confirm what could not be done (the person and the app must both manage there).
      ctx.requirePermission(manage, webhook.companyId);
      const devices = links.length === 1 ? '1 linked device' : `${links.length} linked devices`;
      const answer = await ctx.elicit({
        message: `Delete the webhook "${webhook.name}" (${webhook.url})? Delivery stops at once for its ${devices}, and this cannot be undone.`,
        requestedSchema: z.object({}),
      });
      if (answer.action !== 'accept')
        return { deleted: false, webhookConfigId: args.webhookConfigId, reason: `the person chose ${answer.action}; nothing was deleted` };
    }
    await api.deleteWebhook(args.webhookConfigId);
    return { deleted: true, webhookConfigId: args.webhookConfigId };
  },
});

export const webhookTools: readonly ToolDefinition[] = [listWebhooks, getWebhook, createWebhook, updateWebhook, deleteWebhook];
