// PlatformMcpCallContext: what a tool receives beside its arguments. It holds the call's delegated
// token and the caller as the platform reported them (permissions already narrowed to what the
// person and the app may both do), answers permission questions from that cached answer, and
// hands out the only client through which the token leaves the process: to the platform API.
import type { Logger } from 'pino';
import type { Caller, CallerCompany } from '../caller.ts';
import { createPlatformApiClient, type PlatformApiClient } from './platform-api-client.ts';
import { permissionDenied } from './tool-errors.ts';

/** The call context of one tool call (SPEC "Call context"). */
export interface PlatformMcpCallContext {
  /** The delegated token: use it only as the bearer towards the platform API; never log or store it. */
  readonly authToken: string;
  /** The person, as a platform user id. */
  readonly callerId: string;
  /** The companies the delegated token reaches, with the narrowed permissions. */
  readonly companies: readonly CallerCompany[];
  /** The MCP request's correlation id, on every log line of this call. */
  readonly requestId: string;
  readonly toolName: string;
  /** Aborted when the gRPC deadline passes or the gateway cancels the call. */
  readonly signal: AbortSignal;
  /** The call's logger: every line carries the request id and the tool's name. */
  readonly logger: Logger;
  /** The platform API, called with the delegated token. */
  readonly platform: PlatformApiClient;
  /** Another part of the platform API the app declared by name (the webhook API on its own port), called with the delegated token. */
  platformApi(name: string): PlatformApiClient;
  /** True when the person and the app may both do `permission` at `companyId`. */
  hasPermission(permission: string, companyId: number): boolean;
  /** Always false: the SDK takes delegated tokens only, and delegation gives an owner no bypass. */
  isOwner(companyId: number): false;
  /** Refuses the call (PERMISSION_DENIED, naming the permission and the company) unless hasPermission holds. */
  requirePermission(permission: string, companyId: number): void;
}

export interface CallContextOptions {
  readonly token: string;
  readonly caller: Caller;
  readonly toolName: string;
  readonly requestId: string;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** The platform API's base address. */
  readonly apiBaseUrl: string;
  /** Other base addresses that are part of the platform API, by name. */
  readonly platformApiBaseUrls: ReadonlyMap<string, string>;
  readonly httpTimeoutMs: number;
}

/**
 * Builds the context. Only requestId, toolName and callerId are enumerable (and toJSON shows just
 * those): logging or serializing a context never writes the token, and log redaction, which walks
 * enumerable properties, never touches the signal, the logger or the clients.
 */
export function createCallContext(options: CallContextOptions): PlatformMcpCallContext {
  const { token, caller, toolName, requestId, signal } = options;
  let logger: Logger | undefined;
  let platform: PlatformApiClient | undefined;
  const client = (baseUrl: string, serviceName: string) => createPlatformApiClient({ baseUrl, token, signal, timeoutMs: options.httpTimeoutMs, serviceName });
  const hasPermission = (permission: string, companyId: number) =>
    caller.companies.find((company) => company.id === companyId)?.permissions.has(permission) ?? false;

  const hidden = (value: unknown): PropertyDescriptor => ({ value, enumerable: false });
  const context = { requestId, toolName, callerId: caller.id };
  Object.defineProperties(context, {
    authToken: hidden(token),
    companies: hidden(caller.companies),
    signal: hidden(signal),
    logger: {
      enumerable: false,
      get: () => (logger ??= options.logger.child({ requestId, tool: toolName })),
    },
    platform: {
      enumerable: false,
      get: () => (platform ??= client(options.apiBaseUrl, 'the platform API')),
    },
    platformApi: hidden((name: string) => {
      const baseUrl = options.platformApiBaseUrls.get(name);
      if (baseUrl === undefined) throw new TypeError(`this tool service declares no platform API part named "${name}"`);
      return client(baseUrl, `the ${name} API`);
    }),
    hasPermission: hidden(hasPermission),
    isOwner: hidden(() => false),
    requirePermission: hidden((permission: string, companyId: number) => {
      if (!hasPermission(permission, companyId)) throw permissionDenied(permission, companyId);
    }),
    toJSON: hidden(() => ({ requestId, toolName, callerId: caller.id })),
  });
  return Object.freeze(context) as PlatformMcpCallContext;
}
