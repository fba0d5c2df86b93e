// The SDK's tool surface (`@platform/tool-sdk/tools`; the package root exports it too): define
// tools, read the call context, answer with content, and serve them with `createToolApp`. How the
// app serves them (the gRPC server, the runner, the registration loop) is not part of it: the
// gateway's own code reaches those through the repository's private `@platform/tool-sdk/internal`.
export {
  defineTool,
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
export type { CallClient, ClientLogLevel, FormContent, PlatformMcpCallContext } from './call-context.ts';
export { toolResult, type Bytes, type ContentAnnotations, type ToolContent, type ToolResultSpec, type ToolResultValue } from './tool-content.ts';
export { jsonSchema, type JsonSchemaInput } from './json-schema-input.ts';
export type { FormSchema, FormSpec, FormValue } from './elicitation-form.ts';
export type {
  ElicitationAnswer,
  FormQuestion,
  QuestionOptions,
  Questions,
  Root,
  SamplingAnswer,
  SamplingMessage,
  SamplingRequest,
  UrlQuestion,
} from './tool-questions.ts';
export type { HttpMethod, PlatformApiClient, PlatformPage, PlatformRequestOptions } from './platform-api-client.ts';
export { ToolError } from './tool-errors.ts';
export type { GatewayRegistration, GatewayRegistrationOptions, RegistrationState } from './gateway-registration.ts';
export { createToolApp, type ServeOptions, type ServingToolApp, type ToolApp, type ToolAppOptions } from './tool-app.ts';
