// The service's tools, one small definition each. The SDK checks the delegated token with the
// platform (cached) and the declared permission at args.companyId before a handler runs.
import { defineTool, type ToolDefinition } from '@platform/tool-sdk';
import { z } from 'zod';

/** What the caller may do at one company through this app: the person's and the app's permissions, narrowed to both. */
export const myPermissions = defineTool({
  name: 'my_permissions',
  title: 'My permissions',
  description: 'What you may do at one company through this app. list_companies gives the company ids.',
  inputSchema: z.strictObject({ companyId: z.number().int().positive().describe('The company to look at') }),
  outputSchema: z.object({ companyId: z.number(), permissions: z.array(z.string()), mayManageDevices: z.boolean() }),
  requiresPermission: 'device-overview:view',
  annotations: { readOnlyHint: true },
  handler: ({ companyId }, ctx) => {
    const company = ctx.companies.find((candidate) => candidate.id === companyId);
    ctx.logger.info({ companyId }, 'listed the caller’s permissions');
    return {
      companyId,
      permissions: [...(company?.permissions ?? [])].sort(),
      mayManageDevices: ctx.hasPermission('device-overview:manage', companyId),
    };
  },
});

/** Every tool of this service, registered by main.ts. */
export const permissionTools: readonly ToolDefinition[] = [myPermissions];
