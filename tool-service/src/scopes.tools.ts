// Tools over the scopes (data routes) of a device link: what of a linked device's telemetry is
// forwarded. Data flows while a link has at least one enabled scope that matches it; enabling and
// disabling are their own tools, since they are what an agent reaches for.
import { defineTool, ToolError, type PlatformMcpCallContext, type ToolDefinition } from '@platform/tool-sdk/tools';
import { z } from 'zod';
import { deviceId, scopeId, webhookConfigId } from './tool-inputs.ts';
import { scope, scopeLevels, webhookApi, type Scope, type ScopeFields } from './webhook-api-client.ts';

const view = 'device-overview:view';
const manage = 'device-overview:manage';

const scopeFields = {
  scopeLevel: z
    .enum(scopeLevels)
    .describe(
      'Device: everything the device sends (no connectionTag, no measurement). Connection: everything on one connection (connectionTag required). ' +
        'Measurement: one measurement on one connection (connectionTag and measurement required).',
    ),
  connectionTag: z
    .string()
    .nullable()
    .optional()
    .describe('The connection the scope forwards; for Connection and Measurement scopes only. At most 255 characters.'),
  measurement: z.string().nullable().optional().describe('The measurement the scope forwards; for Measurement scopes only. At most 255 characters.'),
};

const oneScope = z.object({ scope });
const onLink = { webhookConfigId, deviceId };

/** The scope as it is now; a tool error with status 404 when the link has no such scope. */
async function currentScope(ctx: PlatformMcpCallContext, link: { webhookConfigId: string; deviceId: number }, id: string): Promise<Scope> {
  const found = (await webhookApi(ctx).listScopes(link.webhookConfigId, link.deviceId)).find((candidate) => candidate.id === id);
  if (!found) {
    throw new ToolError('NOT_FOUND', `scope ${id} is not on device ${link.deviceId} of webhook configuration ${link.webhookConfigId} (404).`, {
      details: { status: 404 },
    });
  }
  return found;
}

const fieldsOf = (current: Scope): ScopeFields => ({
  scopeLevel: current.scopeLevel,
  connectionTag: current.connectionTag,
  measurement: current.measurement,
  enabled: current.enabled,
});

/** Enables or disables a scope, leaving the rest of it as it is. */
async function setEnabled(ctx: PlatformMcpCallContext, args: { webhookConfigId: string; deviceId: number; scopeId: string }, enabled: boolean) {
  const current = await currentScope(ctx, args, args.scopeId);
  if (current.enabled === enabled) return { scope: current };
  return { scope: await webhookApi(ctx).updateScope(args.webhookConfigId, args.deviceId, args.scopeId, { ...fieldsOf(current), enabled }) };
}

export const addScope = defineTool({
  name: 'add_scope',
  title: 'Add a scope to a device link',
  description:
    "Adds a scope to a device linked to a webhook (link_device first): it chooses which of the device's telemetry is forwarded to the webhook's endpoint. " +
    'The same scope twice on one link fails with 409; a scope that breaks the level rules fails with 400 naming the field.',
  inputSchema: z.strictObject({
    ...onLink,
    ...scopeFields,
    enabled: z.boolean().optional().describe('Whether the scope forwards data from now on; true when not given.'),
  }),
  outputSchema: oneScope,
  requiresPermission: manage,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  handler: async ({ webhookConfigId: id, deviceId: device, enabled = true, ...fields }, ctx) => ({
    scope: await webhookApi(ctx).addScope(id, device, { ...fields, enabled }),
  }),
});

export const listScopes = defineTool({
  name: 'list_scopes',
  title: 'List the scopes of a device link',
  description: 'Lists the scopes of a device linked to a webhook: what is forwarded, and whether each scope is enabled.',
  inputSchema: z.strictObject(onLink),
  outputSchema: z.object({ scopes: z.array(scope) }),
  requiresPermission: view,
  annotations: { readOnlyHint: true },
  handler: async (args, ctx) => ({ scopes: await webhookApi(ctx).listScopes(args.webhookConfigId, args.deviceId) }),
});

export const updateScope = defineTool({
  name: 'update_scope',
  title: 'Change a scope',
  description:
    'Replaces what a scope forwards: give its level with the connectionTag and measurement that level needs (fields left out are cleared). ' +
    'enabled keeps its current value when not given; to only enable or disable a scope, use enable_scope or disable_scope.',
  inputSchema: z.strictObject({
    ...onLink,
    scopeId,
    ...scopeFields,
    enabled: z.boolean().optional().describe('Whether the scope forwards data; unchanged when not given.'),
  }),
  outputSchema: oneScope,
  requiresPermission: manage,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  handler: async ({ webhookConfigId: id, deviceId: device, scopeId: scopeToChange, enabled, ...fields }, ctx) => {
    const keep = enabled ?? (await currentScope(ctx, { webhookConfigId: id, deviceId: device }, scopeToChange)).enabled;
    return { scope: await webhookApi(ctx).updateScope(id, device, scopeToChange, { ...fields, enabled: keep }) };
  },
});

const enableScope = defineTool({
  name: 'enable_scope',
  title: 'Enable a scope',
  description: 'Turns a scope on, so the data it matches is forwarded to the webhook again. Nothing else about the scope changes.',
  inputSchema: z.strictObject({ ...onLink, scopeId }),
  outputSchema: oneScope,
  requiresPermission: manage,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  handler: (args, ctx) => setEnabled(ctx, args, true),
});

const disableScope = defineTool({
  name: 'disable_scope',
  title: 'Disable a scope',
  description:
    'Turns a scope off without removing it: the data it matches stops being forwarded until enable_scope turns it on again. Nothing else about the scope changes.',
  inputSchema: z.strictObject({ ...onLink, scopeId }),
  outputSchema: oneScope,
  requiresPermission: manage,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  handler: (args, ctx) => setEnabled(ctx, args, false),
});

export const removeScope = defineTool({
  name: 'remove_scope',
  title: 'Remove a scope',
  description: "Removes a scope from a device link. When it was the link's last enabled scope, the device's data stops flowing to the webhook.",
  inputSchema: z.strictObject({ ...onLink, scopeId }),
  outputSchema: z.object({ removed: z.literal(true), scopeId: z.string() }),
  requiresPermission: manage,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  handler: async (args, ctx) => {
    await webhookApi(ctx).removeScope(args.webhookConfigId, args.deviceId, args.scopeId);
    return { removed: true as const, scopeId: args.scopeId };
  },
});

export const scopeTools: readonly ToolDefinition[] = [addScope, listScopes, updateScope, enableScope, disableScope, removeScope];
