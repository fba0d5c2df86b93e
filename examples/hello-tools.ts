// A whole tool service on the SDK: one tool, served over gRPC with health and reflection,
// registered at the gateway. Run it with the stack up (npm start):
//   APP_CLIENT_ID=webhook-tools APP_CLIENT_SECRET=<its secret> SERVICE_NAME=hello-tools \
//   CALLBACK_ADDRESS=127.0.0.1:50061 npx node examples/hello-tools.ts
import { createLogger, exitOnStartupFailure, loadPlatformMcpSettings, platformAppIdentity, stopOnSignals } from '@platform/tool-sdk';
import { createToolApp, defineTool, ToolError } from '@platform/tool-sdk/tools';
import { z } from 'zod';

const countDevices = defineTool({
  name: 'count_devices',
  title: 'Count devices',
  description: 'Counts the devices of one company. list_companies gives the company ids.',
  inputSchema: z.strictObject({ companyId: z.number().int().positive().describe('The company whose devices to count') }),
  outputSchema: z.object({ companyId: z.number(), devices: z.number() }),
  requiresPermission: 'device-overview:view', // person ∩ app, checked at args.companyId before the handler runs
  annotations: { readOnlyHint: true },
  handler: async ({ companyId }, ctx) => {
    // ctx.platform sends the delegated token to the platform API, and nowhere else.
    const devices = await ctx.platform.get(`/api/companies/${companyId}/devices`);
    if (!Array.isArray(devices)) throw new ToolError('BAD_RESPONSE', 'The platform answered something other than a device list.');
    ctx.logger.info({ companyId, devices: devices.length }, 'counted devices');
    return { companyId, devices: devices.length };
  },
});

const settings = exitOnStartupFailure('hello-tools', () => loadPlatformMcpSettings(process.env));
const logger = createLogger({ name: settings.serviceName });
const app = createToolApp({ settings, identity: platformAppIdentity(settings), logger });
app.registerTools([countDevices]);
const serving = await exitOnStartupFailure('hello-tools', () => app.serve());
stopOnSignals({ logger, steps: [() => serving.close()] });
