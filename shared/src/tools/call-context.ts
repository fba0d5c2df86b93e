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

/** What a call context is made from: the token, the checked caller, the call and the platform clients. */
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
  /** The fetch of requests to the platform API (its back channel, when one is set); the global one by default. */
  readonly fetch?: typeof globalThis.fetch | undefined;
}

/**
 * The context of one call. Every member is a getter or method on the prototype over private
 * fields: logging or serializing a context writes only what toJSON shows, never the token, and it
 * costs a call one small object.
 */
class CallContext implements PlatformMcpCallContext {
  readonly #options: CallContextOptions;
  #logger: Logger | undefined;
  #platform: PlatformApiClient | undefined;

  constructor(options: CallContextOptions) {
    this.#options = options;
  }

  get authToken(): string {
    return this.#options.token;
  }

  get callerId(): string {
    return this.#options.caller.id;
  }

  get companies(): readonly CallerCompany[] {
    return this.#options.caller.companies;
  }

  get requestId(): string {
    return this.#options.requestId;
  }

  get toolName(): string {
    return this.#options.toolName;
  }

  get signal(): AbortSignal {
    return this.#options.signal;
  }

  get logger(): Logger {
    this.#logger ??= this.#options.logger.child({ requestId: this.requestId, tool: this.toolName });
    return this.#logger;
  }

  get platform(): PlatformApiClient {
    this.#platform ??= this.#client(this.#options.apiBaseUrl, 'the platform API');
    return this.#platform;
  }

  platformApi(name: string): PlatformApiClient {
    const baseUrl = this.#options.platformApiBaseUrls.get(name);
    if (baseUrl === undefined) throw new TypeError(`this tool service declares no platform API part named "${name}"`);
    return this.#client(baseUrl, `the ${name} API`);
  }

  hasPermission(permission: string, companyId: number): boolean {
    return this.companies.find((company) => company.id === companyId)?.permissions.has(permission) ?? false;
  }

  isOwner(_companyId: number): false {
    return false;
  }

  requirePermission(permission: string, companyId: number): void {
    if (!this.hasPermission(permission, companyId)) throw permissionDenied(permission, companyId);
  }

  toJSON(): { requestId: string; toolName: string; callerId: string } {
    return { requestId: this.requestId, toolName: this.toolName, callerId: this.callerId };
  }

  #client(baseUrl: string, serviceName: string): PlatformApiClient {
    const { token, httpTimeoutMs: timeoutMs, fetch } = this.#options;
    return createPlatformApiClient({ baseUrl, token, signal: this.signal, timeoutMs, serviceName, ...(fetch && { fetch }) });
  }
}

/** The `PlatformMcpCallContext` a tool's handler receives. */
export function createCallContext(options: CallContextOptions): PlatformMcpCallContext {
  return new CallContext(options);
}
