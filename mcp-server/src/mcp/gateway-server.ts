// One MCP server instance over the tool gateway: tools/list and tools/call, answered from the live
// catalog for the caller of each request. Built per request (2026-07-28) or per session
// (2025-11-25). The tools are remote, live and per caller, so the two methods are answered at the
// protocol layer (`mcp.server`, the SDK's per-method escape hatch) rather than by registerTool:
// each JSON Schema is listed exactly as its service published it, the list is filtered for the
// caller on every request, and the service validates the arguments against that same schema.
import { McpServer, ProtocolError, ProtocolErrorCode, type CallToolRequest, type ServerContext } from '@modelcontextprotocol/server';
import { clip } from '@platform/tool-sdk';
import { callerInfoOf } from '../http/require-caller.ts';
import type { ToolCatalog } from '../remote-tools.ts';
import { inMcpSpan, lookUp } from '../observability/gateway-tracing.ts';
import { requestContextOf } from '../observability/mcp-request-telemetry.ts';
import type { CallerRequest, ToolGateway } from './tool-gateway.ts';

const serverInfo = { name: 'platform-mcp-gateway', title: 'Device telemetry platform tools', version: '1.0.0' } as const;

const instructions =
  'Tools of the device-telemetry platform. Each runs on your behalf through its app, with what you and the app may both do; ' +
  'a tool you lack the permission for is not listed. Results that say no delegated token could be obtained mean the tool was not run.';

export interface GatewayServerOptions {
  readonly gateway: ToolGateway;
  readonly catalog: () => ToolCatalog;
}

function callerRequest(ctx: ServerContext): CallerRequest {
  const authInfo = ctx.http?.authInfo;
  const info = callerInfoOf(authInfo);
  // The HTTP guard admits no request without a checked caller; this is a wiring fault, not the caller's.
  if (!info || !authInfo) throw new ProtocolError(ProtocolErrorCode.InternalError, 'the request reached the MCP server without a checked caller');
  return { caller: info.caller, token: authInfo.token, requestId: info.requestId, signal: ctx.mcpReq.signal };
}

export function createGatewayServer(options: GatewayServerOptions): McpServer {
  const { gateway } = options;
  const mcp = new McpServer(serverInfo, { capabilities: { tools: { listChanged: true } }, instructions });
  const { server } = mcp;
  server.setRequestHandler('tools/list', (request, ctx) =>
    inMcpSpan('tools/list', request.params, requestContextOf(ctx.http?.authInfo?.extra), async () => ({ tools: await gateway.list(callerRequest(ctx)) })),
  );
  server.setRequestHandler('tools/call', (request, ctx) =>
    inMcpSpan('tools/call', request.params, requestContextOf(ctx.http?.authInfo?.extra), () => call(request, ctx)),
  );
  const call = async (request: CallToolRequest, ctx: ServerContext) => {
    const { name } = request.params;
    const tool = lookUp(name, () => options.catalog().byName(name));
    // A name belongs to one app for good: a name no live service offers is never sent elsewhere.
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Tool ${clip(name, 128)} not found: no live service offers it now (it may have been withdrawn); list the tools again`,
      );
    }
    const result = await gateway.call(tool, request.params.arguments ?? {}, callerRequest(ctx));
    return server.projectCallToolResult(result, tool.outputSchema);
  };
  return mcp;
}
