// The tool SDK's public surface: settings, the caller check and its cache, the app's own
// credentials, the platform's answers, errors, logging, and how a service starts and stops.
// Tests use `@platform/shared/testing`.
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
export { platformAppIdentity, type PlatformAppIdentity, type PlatformAppIdentityOptions } from './platform-app-identity.ts';
export { isLoopbackHost, localOrigin } from './loopback.ts';
export { clip, oneLine } from './short-text.ts';
export { nestsDeeperThan } from './json-nesting.ts';
export { isPlainText, plainText, serializedWebAddress, webAddressMessages, webAddressProblem, type WebAddressProblem } from './input-text.ts';
export { createLogger, redactSecrets, redactedKeys, type Logger, type LoggerOptions } from './logger.ts';
export { createRequestLogging, loggedRequestHeaders } from './request-logging.ts';
export { bindFailure } from './bind-failure.ts';
export { grpcTlsAsked, grpcTlsProblems, grpcTlsShape, toGrpcTlsSettings, type GrpcTlsSettings } from './grpc-tls-settings.ts';
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
