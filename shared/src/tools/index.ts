// The tool SDK's tool surface (`@platform/shared/tools`): define tools, read the call context,
// serve them over gRPC with health and reflection, and stay registered at the gateway.
export {
  defineTool,
  permissionPattern,
  toolNamePattern,
  ToolDefinitionError,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolResult,
  type ToolSpec,
} from './tool-definition.ts';
export { createCallContext, type CallContextOptions, type PlatformMcpCallContext } from './call-context.ts';
export {
  addressWithin,
  createPlatformApiClient,
  type HttpMethod,
  type PlatformApiClient,
  type PlatformPage,
  type PlatformRequestOptions,
} from './platform-api-client.ts';
export { permissionDenied, ToolCallError, toolCallCatalog, ToolError, type ToolCallErrorCode } from './tool-errors.ts';
export { createToolRunner, type ToolCall, type ToolCallOutcome, type ToolRunner } from './tool-runner.ts';
export { startToolServer, toolServiceName, maxRequestBytes, type RunningToolServer, type ToolServerTime, type ToolServerTransport } from './tool-server.ts';
export { backoffDelay, createGatewayRegistration, heartbeatDelay, type GatewayRegistration, type RegistrationState } from './gateway-registration.ts';
export { createToolApp, type ServeOptions, type ServingToolApp, type ToolApp, type ToolAppOptions } from './tool-app.ts';
