// The tool SDK's public surface: settings, the caller check and its cache, the app's own
// credentials, errors and logging.
export { PlatformError, isPlatformError, sdkErrorCodes, type SdkErrorCode } from './errors.ts';
export { systemClock, type Clock } from './clock.ts';
export {
  loadPlatformAppSettings,
  loadPlatformMcpSettings,
  parseEnvironment,
  type Environment,
  type PlatformAppSettings,
  type PlatformMcpSettings,
} from './settings.ts';
export { extractBearer, parseCredential, type Credential, type CredentialScheme } from './extract-bearer.ts';
export { createHttpClient, discardBody, endpoint, readJson, unexpectedStatus, type HttpClient, type HttpClientOptions } from './http-client.ts';
export { meResponseSchema, toCaller, type Caller, type CallerCompany } from './caller.ts';
export { fetchCaller, resolveCaller } from './resolve-caller.ts';
export { CachedTokenResolver, tokenExpiry, type CachedTokenResolverOptions, type TokenCheck } from './cached-token-resolver.ts';
export { ApiTokenProvider, classifyTokenError, type ApiTokenProviderOptions, type TokenProvider } from './api-token-provider.ts';
export { AppKeyResolver, type AppKeyResolverOptions } from './app-key-resolver.ts';
export { platformAppIdentity, type PlatformAppIdentity, type PlatformAppIdentityOptions } from './platform-app-identity.ts';
export { createLogger, redactPaths, redactedKeys, type Logger, type LoggerOptions } from './logger.ts';
export { createRequestLogging } from './request-logging.ts';
