// Tools over the platform itself, so an agent can find the ids the webhook tools need: who the
// person is and what they may do (whoami), their companies, a company's devices, and this app's
// own identity (app_info, asked with the app's client credentials, no person involved).
import { isPlatformError, type PlatformAppIdentity } from '@platform/tool-sdk';
import { defineTool, ToolError, type ToolDefinition } from '@platform/tool-sdk/tools';
import { z } from 'zod';
import { shapedAnswer } from './answer-shape.ts';
import { companyId } from './tool-inputs.ts';

const company = z.object({ id: z.number().int(), name: z.string(), parentId: z.number().int().nullable() });
const device = z.object({ id: z.number().int(), companyId: z.number().int(), gatewayId: z.string(), name: z.string().optional() });

export const whoami = defineTool({
  name: 'whoami',
  title: 'Who am I',
  description:
    'Shows the person you act for: their user id, and each company this app reaches for them with the permissions person and app hold there together ' +
    '(device-overview:view to read webhooks, device-overview:manage to change them). Ownership grants nothing extra here.',
  inputSchema: z.strictObject({}),
  outputSchema: z.object({
    userId: z.string(),
    companies: z.array(z.object({ id: z.number().int(), name: z.string(), isOwner: z.literal(false), permissions: z.array(z.string()) })),
  }),
  annotations: { readOnlyHint: true },
  // The call context already holds the platform's answer for this token: no request needed.
  handler: (_args, ctx) => ({
    userId: ctx.callerId,
    companies: ctx.companies.map((c) => ({ id: c.id, name: c.name, isOwner: false as const, permissions: [...c.permissions].sort() })),
  }),
});

const listCompanies = defineTool({
  name: 'list_companies',
  title: 'List companies',
  description:
    "Lists the companies you can work in for this person (only those where this app is installed), with each one's parent company. Use the ids with the other tools.",
  inputSchema: z.strictObject({}),
  outputSchema: z.object({ companies: z.array(company) }),
  annotations: { readOnlyHint: true },
  handler: async (_args, ctx) => ({
    companies: shapedAnswer(z.array(company), await ctx.platform.get('/api/companies'), 'the platform API', 'GET /api/companies'),
  }),
});

export const listDevices = defineTool({
  name: 'list_devices',
  title: 'List devices',
  description: "Lists a company's devices with their ids, gateways and names; link_device takes these ids.",
  inputSchema: z.strictObject({ companyId }),
  outputSchema: z.object({ devices: z.array(device) }),
  requiresPermission: 'device-overview:view',
  annotations: { readOnlyHint: true },
  handler: async (args, ctx) => {
    const path = `/api/companies/${args.companyId}/devices`;
    return { devices: shapedAnswer(z.array(device), await ctx.platform.get(path), 'the platform API', `GET ${path}`) };
  },
});

/** app_info: the app key, asked with the app's own client credentials. */
export function appInfo(identity: PlatformAppIdentity): ToolDefinition {
  return defineTool({
    name: 'app_info',
    title: 'About this app',
    description:
      'Shows the app these tools run as: its client id and its app key (the namespace of its own permissions, <appKey>:*). ' +
      'Asked with the app’s own credentials, not the person’s.',
    inputSchema: z.strictObject({}),
    outputSchema: z.object({ clientId: z.string(), appKey: z.string() }),
    annotations: { readOnlyHint: true },
    handler: async () => {
      let appKey: string | null;
      try {
        appKey = await identity.appKey();
      } catch (error) {
        if (!isPlatformError(error)) throw error;
        const refused = error.code === 'APP_CREDENTIALS_REJECTED' || error.code === 'APP_TOKEN_REJECTED';
        throw refused
          ? new ToolError(
              'APP_CREDENTIALS_REJECTED',
              `The platform refused this tool service's own client credentials (client ${identity.clientId}); an administrator must fix them.`,
              {
                cause: error,
              },
            )
          : new ToolError('UNAVAILABLE', 'The platform could not be reached to read the app key; try again shortly.', { cause: error });
      }
      if (appKey === null) {
        throw new ToolError(
          'APP_NOT_LINKED',
          `The client ${identity.clientId} these tools run as is linked to no app, so there is no app key. Only a platform administrator can link it; trying again will not help.`,
        );
      }
      return { clientId: identity.clientId, appKey };
    },
  });
}

export const platformTools = (identity: PlatformAppIdentity): readonly ToolDefinition[] => [whoami, listCompanies, listDevices, appInfo(identity)];
