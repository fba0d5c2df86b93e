// The tool SDK's tool surface (`@platform/tool-sdk/tools`; the package root exports it too): define
// tools, read the call context, serve them over gRPC with health and reflection, and stay registered
// at the gateway.
export {
  defineTool,
  permissionPattern,
  toolNamePattern,
  ToolDefinitionError,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolExecution,
  type ToolTaskStart,
  type ToolTaskSupport,
  type ArgsOf,
  type ResultOf,
  type SchemaCheck,
  type ToolResult,
  type ToolSchema,
  type ToolSpec,
} from './tool-definition.ts';
export {
  clientLogLevels,
  createCallContext,
  noClient,
  type CallClient,
  type CallContextOptions,
  type CallEvents,
  type ClientLogLevel,
  type FormContent,
  type PlatformMcpCallContext,
} from './call-context.ts';
export { toolResult, type Bytes, type ContentAnnotations, type ToolContent, type ToolResultSpec, type ToolResultValue } from './tool-content.ts';
export { jsonSchema, type JsonSchemaInput } from './json-schema-input.ts';
export type { FormSchema, FormSpec, FormValue } from './elicitation-form.ts';
export {
  maxQuestionsPerRun,
  type ElicitationAnswer,
  type FormQuestion,
  type QuestionOptions,
  type Questions,
  type Root,
  type SamplingAnswer,
  type SamplingMessage,
  type SamplingRequest,
  type UrlQuestion,
} from './tool-questions.ts';
export {
  addressWithin,
  createPlatformApiClient,
  type HttpMethod,
  type PlatformApiClient,
  type PlatformApiClientOptions,
  type PlatformPage,
  type PlatformRequestOptions,
} from './platform-api-client.ts';
export { permissionDenied, ToolCallError, toolCallCatalog, ToolError, type ToolCallErrorCode } from './tool-errors.ts';
export { createToolRunner, type ToolCall, type ToolCallOutcome, type ToolRunner, type ToolRunnerOptions } from './tool-runner.ts';
export type { TokenRenewals } from './token-renewal.ts';
export { checkHealth, probeRegistration } from './health-probe.ts';
export {
  startToolServer,
  toolServiceName,
  registrationHealthName,
  maxRequestBytes,
  type RunningToolServer,
  type ToolServerTime,
  type ToolServerTransport,
} from './tool-server.ts';
export {
  backoffDelay,
  createGatewayRegistration,
  heartbeatDelay,
  type GatewayRegistration,
  type GatewayRegistrationOptions,
  type RegistrationState,
} from './gateway-registration.ts';
export { createToolApp, type ServeOptions, type ServingToolApp, type ToolApp, type ToolAppOptions } from './tool-app.ts';
