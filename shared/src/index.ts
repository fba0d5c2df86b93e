// The tool SDK's public surface, what a tool service's author needs: define tools and serve them
// (also `@platform/tool-sdk/tools` alone), the settings and the app's identity, the call context and
// its errors, logging, and how a service starts and stops. Tests use `@platform/tool-sdk/testing`,
// tracing and metrics `@platform/tool-sdk/observability`. What only this repository's own services
// share (the caller check, TLS, HTTP helpers, text rules) is in `./internal.ts`, which is not
// published: see docs/tool-sdk.md, "The public surface".
export { PlatformError, isPlatformError, sdkErrorCodes, type SdkErrorCode } from './errors/platform-error.ts';
export type { Clock } from './time/clock.ts';
export type { Timers } from './time/timers.ts';
export { setting, type Environment, type LogLevel } from './settings/vocabulary.ts';
export {
  loadPlatformMcpSettings,
  loadToolServiceSettingsWith,
  type PlatformAppSettings,
  type PlatformMcpSettings,
  type ToolServiceSettingsOptions,
} from './settings/platform-settings.ts';
export type { GrpcTlsSettings } from './grpc/tls-settings.ts';
export type { HttpClient } from './http/client.ts';
export type { Caller, CallerCompany } from './caller/caller.ts';
export type { TokenProvider } from './identity/api-token-provider.ts';
export { platformAppIdentity, type PlatformAppIdentity, type PlatformAppIdentityOptions } from './identity/platform-app-identity.ts';
export { createLogger, type Logger, type LoggerOptions } from './service/logger.ts';
export { exitOnStartupFailure, stopOnSignals, type StopOptions } from './service/lifecycle.ts';
// The tool surface, also exported alone as `@platform/tool-sdk/tools`.
export {
  createToolApp,
  defineTool,
  jsonSchema,
  ToolDefinitionError,
  ToolError,
  toolResult,
  type ArgsOf,
  type Bytes,
  type CallClient,
  type ClientLogLevel,
  type ContentAnnotations,
  type ElicitationAnswer,
  type FormContent,
  type FormQuestion,
  type FormSchema,
  type FormSpec,
  type FormValue,
  type GatewayRegistration,
  type GatewayRegistrationOptions,
  type HttpMethod,
  type JsonSchemaInput,
  type PlatformApiClient,
  type PlatformMcpCallContext,
  type PlatformPage,
  type PlatformRequestOptions,
  type QuestionOptions,
  type Questions,
  type RegistrationState,
  type ResultOf,
  type Root,
  type SamplingAnswer,
  type SamplingMessage,
  type SamplingRequest,
  type SchemaCheck,
  type ServeOptions,
  type ServingToolApp,
  type ToolAnnotations,
  type ToolApp,
  type ToolAppOptions,
  type ToolContent,
  type ToolDefinition,
  type ToolExecution,
  type ToolResult,
  type ToolResultSpec,
  type ToolResultValue,
  type ToolSchema,
  type ToolSpec,
  type ToolTaskStart,
  type ToolTaskSupport,
  type UrlQuestion,
} from './tools/index.ts';
