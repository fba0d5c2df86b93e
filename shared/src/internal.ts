// The repository's private entry (`@platform/tool-sdk/internal`): what the gateway, the dev
// platform, the webhook API, the tool service and the scripts share with the SDK but a tool
// service's author never needs (the caller check and its cache, TLS, HTTP and JSON-body helpers,
// the text rules, the gRPC server and runner the app is built from). The manifest maps it under
// the repository's source condition only and the build leaves it out, so the packed package has
// no such entry: nothing here is public API, and any of it may change in any release.
export { CatalogError, type ErrorCatalog } from './errors/catalog-error.ts';
export { systemClock } from './time/clock.ts';
export { systemTimers } from './time/timers.ts';
export { parseEnvironment, parseSettings, logLevels, unreadableFileReason, type CrossCheck, type SettingsPart } from './settings/vocabulary.ts';
export { fetchBlockedPortReason, fetchBlockedPorts, isFetchBlockedPort } from './http/fetch-blocked-ports.ts';
export {
  loadPlatformAppSettings,
  platformAddressesOf,
  platformAddressShape,
  platformMcpVariables,
  toolServiceSettingsPart,
  type ToolServiceSettingsWith,
} from './settings/platform-settings.ts';
export { metricsSettingsPart, toolMetricsSettingsPart } from './observability/metrics-settings.ts';
export { telemetrySettingsPart } from './observability/telemetry-settings.ts';
export { extractBearer, parseCredential, type Credential, type CredentialScheme } from './caller/extract-bearer.ts';
export { createHttpClient, endpoint, type HttpClientOptions } from './http/client.ts';
export { defaultMaxAnswerBytes, discardBody, readJson, readPlatformAnswer, unexpectedStatus, type PlatformAnswerOptions } from './http/platform-answer.ts';
export { meResponseSchema, toCaller, type MeAnswer } from './caller/caller.ts';
export { fetchCaller, resolveCaller } from './caller/resolve-caller.ts';
export { createCallerCheck, type ActorRule, type CallerCheck, type CallerCheckOptions, type CallerCheckResult } from './caller/check-caller.ts';
export { CachedTokenResolver, tokenExpiry, type CachedTokenResolverOptions, type TokenCheck } from './caller/cached-token-resolver.ts';
export { ApiTokenProvider, classifyTokenError, type ApiTokenProviderOptions } from './identity/api-token-provider.ts';
export { AppKeyResolver, type AppKeyResolverOptions } from './identity/app-key-resolver.ts';
export { createPlatformHttpClient, platformFetchOf } from './identity/platform-app-identity.ts';
export { backChannelFetch, platformFetch, type BackChannelOptions } from './identity/back-channel.ts';
export { createHttpsServer, httpTlsProblems, httpTlsShape, toHttpTlsSettings, type HttpTlsSettings, type HttpTlsValues } from './http/tls.ts';
export { isLoopbackHost, localOrigin } from './http/loopback.ts';
export { clip } from './text/short-text.ts';
export {
  hasControlCharacters,
  hasDirectionControls,
  hasInvisibleCharacters,
  isPlainText,
  isSafeText,
  needsCleaning,
  oneLine,
  shownText,
  storableText,
  unsafeTextMessages,
  unsafeTextProblem,
} from './text/text-safety.ts';
export { nestsDeeperThan } from './http/json-nesting.ts';
export { hasRequestBody, jsonBodyRefusal, jsonBodyTypes, type JsonBodyRefusal } from './http/json-body.ts';
export { plainText, serializedWebAddress, webAddressMessages, webAddressProblem, type WebAddressProblem } from './text/input-text.ts';
export { redactSecrets, redactedKeys } from './service/logger.ts';
export { createRequestLogging, loggedRequestHeaders, type RequestLogging } from './http/request-logging.ts';
export { bindFailure } from './service/bind-failure.ts';
export { grpcTlsAsked, grpcTlsProblems, grpcTlsShape, toGrpcTlsSettings, type GrpcTlsValues } from './grpc/tls-settings.ts';
export { channelCredentialsOf, createGrpcTls, guardTlsHandshakes, serverCredentialsOf, tlsRefusalReason, type GrpcTls, type TlsRefusal } from './grpc/tls.ts';
export { closeServer, endWithParent, failStartup, listenOn, type ListenOptions } from './service/lifecycle.ts';
export { permissionPattern, toolNamePattern } from './tools/tool-definition.ts';
export { createSchemaChecks, type SchemaChecks } from './tools/json-schema-input.ts';
export { clientLogLevels, createCallContext, noClient, type CallContextOptions, type CallEvents } from './tools/call-context.ts';
export { maxQuestionsPerRun } from './tools/tool-questions.ts';
export { addressWithin, createPlatformApiClient, type PlatformApiClientOptions } from './tools/platform-api-client.ts';
export { permissionDenied, ToolCallError, toolCallCatalog, type ToolCallErrorCode } from './tools/tool-errors.ts';
export { createToolRunner, type ToolCall, type ToolCallOutcome, type ToolRunner, type ToolRunnerOptions } from './tools/tool-runner.ts';
export type { TokenRenewals } from './tools/token-renewal.ts';
export { checkHealth, probeRegistration } from './tools/health-probe.ts';
export {
  startToolServer,
  toolServiceName,
  registrationHealthName,
  maxRequestBytes,
  type RunningToolServer,
  type ToolServerTime,
  type ToolServerTransport,
} from './tools/tool-server.ts';
export { backoffDelay, createGatewayRegistration, heartbeatDelay } from './tools/gateway-registration.ts';
