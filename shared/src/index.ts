// The tool SDK's public surface: tools (define them, serve them, stay registered at the gateway),
// settings, the caller check and its cache, the app's own credentials, the platform's answers,
// errors, logging, and how a service starts and stops. Tests use `@platform/tool-sdk/testing`.
export { PlatformError, isPlatformError, sdkErrorCodes, type SdkErrorCode } from './errors.ts';
export { CatalogError, type ErrorCatalog } from './catalog-error.ts';
export { systemClock, type Clock } from './clock.ts';
export { systemTimers, type Timers } from './timers.ts';
export { parseEnvironment, setting, logLevels, unreadableFileReason, type CrossCheck, type Environment, type LogLevel } from './settings-vocabulary.ts';
export { fetchBlockedPortReason, fetchBlockedPorts, isFetchBlockedPort } from './fetch-blocked-ports.ts';
export {
  loadPlatformAppSettings,
  loadPlatformMcpSettings,
  loadToolServiceSettingsWith,
  platformMcpVariables,
  type PlatformAppSettings,
  type PlatformMcpSettings,
  type ToolServiceSettingsOptions,
} from './settings.ts';
export { extractBearer, parseCredential, type Credential, type CredentialScheme } from './extract-bearer.ts';
export { createHttpClient, endpoint, type HttpClient, type HttpClientOptions } from './http-client.ts';
export { defaultMaxAnswerBytes, discardBody, readJson, readPlatformAnswer, unexpectedStatus, type PlatformAnswerOptions } from './platform-answer.ts';
export { meResponseSchema, toCaller, type Caller, type CallerCompany, type MeAnswer } from './caller.ts';
export { fetchCaller, resolveCaller } from './resolve-caller.ts';
export { createCallerCheck, type ActorRule, type CallerCheck, type CallerCheckOptions, type CallerCheckResult } from './check-caller.ts';
export { CachedTokenResolver, tokenExpiry, type CachedTokenResolverOptions, type TokenCheck } from './cached-token-resolver.ts';
export { ApiTokenProvider, classifyTokenError, type ApiTokenProviderOptions, type TokenProvider } from './api-token-provider.ts';
export { AppKeyResolver, type AppKeyResolverOptions } from './app-key-resolver.ts';
export {
  createPlatformHttpClient,
  platformAppIdentity,
  platformFetchOf,
  type PlatformAppIdentity,
  type PlatformAppIdentityOptions,
} from './platform-app-identity.ts';
export { backChannelFetch, platformFetch, type BackChannelOptions } from './back-channel.ts';
export { createHttpsServer, httpTlsProblems, httpTlsShape, toHttpTlsSettings, type HttpTlsSettings, type HttpTlsValues } from './http-tls.ts';
export { isLoopbackHost, localOrigin } from './loopback.ts';
export { clip, oneLine } from './short-text.ts';
export { nestsDeeperThan } from './json-nesting.ts';
export { hasRequestBody, jsonBodyRefusal, jsonBodyTypes, type JsonBodyRefusal } from './json-body.ts';
export { isPlainText, plainText, serializedWebAddress, webAddressMessages, webAddressProblem, type WebAddressProblem } from './input-text.ts';
export { createLogger, redactSecrets, redactedKeys, type Logger, type LoggerOptions } from './logger.ts';
export { createRequestLogging, loggedRequestHeaders, type RequestLogging } from './request-logging.ts';
export { bindFailure } from './bind-failure.ts';
export { grpcTlsAsked, grpcTlsProblems, grpcTlsShape, toGrpcTlsSettings, type GrpcTlsSettings, type GrpcTlsValues } from './grpc-tls-settings.ts';
export { channelCredentialsOf, createGrpcTls, guardTlsHandshakes, serverCredentialsOf, tlsRefusalReason, type GrpcTls, type TlsRefusal } from './grpc-tls.ts';
export {
  closeServer,
  endWithParent,
  exitOnStartupFailure,
  failStartup,
  listenOn,
  stopOnSignals,
  type ListenOptions,
  type StopOptions,
} from './service-lifecycle.ts';
// The tool surface, also exported alone as `@platform/tool-sdk/tools`.
export {
  addressWithin,
  backoffDelay,
  clientLogLevels,
  createCallContext,
  createGatewayRegistration,
  createPlatformApiClient,
  createToolApp,
  createToolRunner,
  defineTool,
  heartbeatDelay,
  jsonSchema,
  maxQuestionsPerRun,
  maxRequestBytes,
  noClient,
  permissionDenied,
  permissionPattern,
  startToolServer,
  ToolCallError,
  toolCallCatalog,
  ToolDefinitionError,
  ToolError,
  toolNamePattern,
  toolResult,
  toolServiceName,
  type ArgsOf,
  type Bytes,
  type CallClient,
  type CallContextOptions,
  type CallEvents,
  type ClientLogLevel,
  type ContentAnnotations,
  type ElicitationAnswer,
  type FormContent,
  type FormQuestion,
  type FormSchema,
  type FormSpec,
  type FormValue,
  type JsonSchemaInput,
  type QuestionOptions,
  type Questions,
  type Root,
  type SamplingAnswer,
  type SamplingMessage,
  type SamplingRequest,
  type SchemaCheck,
  type ToolContent,
  type ToolResultSpec,
  type ToolResultValue,
  type ToolSchema,
  type UrlQuestion,
  type GatewayRegistration,
  type GatewayRegistrationOptions,
  type HttpMethod,
  type PlatformApiClient,
  type PlatformApiClientOptions,
  type PlatformMcpCallContext,
  type PlatformPage,
  type PlatformRequestOptions,
  type RegistrationState,
  type RunningToolServer,
  type ServeOptions,
  type ServingToolApp,
  type ToolAnnotations,
  type ToolApp,
  type ToolAppOptions,
  type ToolCall,
  type ToolCallErrorCode,
  type ToolCallOutcome,
  type ToolDefinition,
  type ToolExecution,
  type ToolTaskStart,
  type ToolTaskSupport,
  type TokenRenewals,
  type ResultOf,
  type ToolResult,
  type ToolRunner,
  type ToolRunnerOptions,
  type ToolServerTime,
  type ToolSpec,
} from './tools/index.ts';
