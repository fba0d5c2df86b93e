// Tools over the devices linked to a webhook configuration: link, unlink and list. A link alone
// forwards nothing; its scopes (scopes.tools.ts) choose what is delivered.
import { defineTool, type ToolDefinition } from '@platform/tool-sdk/tools';
import { z } from 'zod';
import { deviceId, webhookConfigId } from './tool-inputs.ts';
import { deviceLink, webhookApi } from './webhook-api-client.ts';

export const linkDevice = defineTool({
  name: 'link_device',
  title: 'Link a device to a webhook',
  description:
    "Links a device to a webhook configuration of the same company (list_devices shows the company's devices). " +
    'A link alone forwards no data: add a scope to it with add_scope. Linking a device that is already linked fails with 409.',
  inputSchema: z.strictObject({ webhookConfigId, deviceId }),
  outputSchema: z.object({ link: deviceLink }),
  requiresPermission: 'device-overview:manage',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  handler: async (args, ctx) => ({ link: await webhookApi(ctx).linkDevice(args.webhookConfigId, args.deviceId) }),
});

export const unlinkDevice = defineTool({
  name: 'unlink_device',
  title: 'Unlink a device from a webhook',
  description:
    "Unlinks a device from a webhook configuration; the link's scopes go with it and the device's data stops flowing to that endpoint. " +
    'When the link has scopes, the person is asked to confirm first when their client can ask; unlinked is false when they do not.',
  inputSchema: z.strictObject({ webhookConfigId, deviceId }),
  outputSchema: z.object({
    unlinked: z.boolean(),
    webhookConfigId: z.string(),
    deviceId: z.number(),
    reason: z.string().optional().describe('Why it was not unlinked, when it was not.'),
  }),
  requiresPermission: 'device-overview:manage',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  handler: async (args, ctx) => {
    const api = webhookApi(ctx);
    if (ctx.client.elicitation.form) {
      const scopes = await api.listScopes(args.webhookConfigId, args.deviceId);
      if (scopes.length > 0) {
        const webhook = await api.getWebhook(args.webhookConfigId);
        // Refused before the person is asked to confirm what could not be done.
        ctx.requirePermission('device-overview:manage', webhook.companyId);
        const forwarding = scopes.filter((scope) => scope.enabled).length;
        const answer = await ctx.elicit({
          message:
            `Unlink device ${args.deviceId} from the webhook "${webhook.name}"? Its ${scopes.length} scope${scopes.length === 1 ? '' : 's'} ` +
            `(${forwarding} forwarding now) go with it, and its data stops flowing to ${webhook.url}.`,
          requestedSchema: z.object({}),
        });
        if (answer.action !== 'accept') {
          return {
            unlinked: false,
            webhookConfigId: args.webhookConfigId,
            deviceId: args.deviceId,
            reason: `the person chose ${answer.action}; nothing was unlinked`,
          };
        }
      }
    }
    await api.unlinkDevice(args.webhookConfigId, args.deviceId);
    return { unlinked: true, webhookConfigId: args.webhookConfigId, deviceId: args.deviceId };
  },
});

const listLinkedDevices = defineTool({
  name: 'list_linked_devices',
  title: 'List devices linked to a webhook',
  description: 'Lists the devices linked to a webhook configuration, with when each was linked. Use list_scopes to see what each link forwards.',
  inputSchema: z.strictObject({ webhookConfigId }),
  outputSchema: z.object({ links: z.array(deviceLink) }),
  requiresPermission: 'device-overview:view',
  annotations: { readOnlyHint: true },
  handler: async (args, ctx) => ({ links: await webhookApi(ctx).listLinks(args.webhookConfigId) }),
});

export const deviceLinkTools: readonly ToolDefinition[] = [linkDevice, unlinkDevice, listLinkedDevices];
