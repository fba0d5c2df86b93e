// PlatformMcpCallContext: what a tool receives beside its arguments. It holds the call's delegated
// token and the caller as the platform reported them (permissions already narrowed to what the
// person and the app may both do), answers permission questions from that cached answer, and
// hands out the only client through which the token leaves the process: to the platform API.
import type { Logger } from 'pino';
import type { Caller, CallerCompany } from '../caller.ts';
import { createPlatformApiClient, type PlatformApiClient } from './platform-api-client.ts';
import { permissionDenied } from './tool-errors.ts';

export interface CallContextOptions {
  readonly token: string;
  readonly caller: Caller;
  readonly toolName: string;
  readonly requestId: string;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** The platform API's base address. */
  readonly apiBaseUrl: string;
  /** Other base addresses that are part of the platform API (the webhook API on its own port). */
  readonly platformApiBaseUrls: ReadonlyMap<string, string>;
  readonly httpTimeoutMs: number;
}

/**
 * The call context of one tool call (SPEC "Call context"). The token is readable as `authToken`
 * but is not an own property, so serializing or logging the context never writes it.
 */
export class PlatformMcpCallContext {
  readonly #options: CallContextOptions;
  #logger: Logger | undefined;
  #platform: PlatformApiClient | undefined;

  /** The person, as a platform user id. */
  readonly callerId: string;
  /** The companies the delegated token reaches, with the narrowed permissions. */
  readonly companies: readonly CallerCompany[];
  /** The MCP request's correlation id, on every log line of this call. */
  readonly requestId: string;
  readonly toolName: string;
  /** Aborted when the gRPC deadline passes or the gateway cancels the call. */
  readonly signal: AbortSignal;

  constructor(options: CallContextOptions) {
    this.#options = options;
    this.callerId = options.caller.id;
    this.companies = options.caller.companies;
    this.requestId = options.requestId;
    this.toolName = options.toolName;
    this.signal = options.signal;
  }

  /** The delegated token: use it only as the bearer towards the platform API; never log or store it. */
  get authToken(): string {
    return this.#options.token;
  }

  /** True when the person and the app may both do `permission` at `companyId`. */
  hasPermission(permission: string, companyId: number): boolean {
    return this.companies.find((company) => company.id === companyId)?.permissions.has(permission) ?? false;
  }

  /** Always false: the SDK takes delegated tokens only, and delegation gives an owner no bypass. */
  isOwner(_companyId: number): false {
    return false;
  }

  /** Refuses the call (PERMISSION_DENIED, naming the permission and company) unless hasPermission holds. */
  requirePermission(permission: string, companyId: number): void {
    if (!this.hasPermission(permission, companyId)) throw permissionDenied(permission, companyId);
  }

  /** The call's logger: every line carries the request id and the tool's name. */
  get logger(): Logger {
    this.#logger ??= this.#options.logger.child({ requestId: this.requestId, tool: this.toolName });
    return this.#logger;
  }

  /** The platform API, called with the delegated token. */
  get platform(): PlatformApiClient {
    this.#platform ??= this.#client(this.#options.apiBaseUrl, 'the platform API');
    return this.#platform;
  }

  /** Another part of the platform API the app declared (by the name it gave it), called with the delegated token. */
  platformApi(name: string): PlatformApiClient {
    const baseUrl = this.#options.platformApiBaseUrls.get(name);
    if (baseUrl === undefined) throw new TypeError(`this tool service declares no platform API part named "${name}"`);
    return this.#client(baseUrl, `the ${name} API`);
  }

  #client(baseUrl: string, serviceName: string): PlatformApiClient {
    return createPlatformApiClient({ baseUrl, token: this.#options.token, signal: this.signal, timeoutMs: this.#options.httpTimeoutMs, serviceName });
  }
}
