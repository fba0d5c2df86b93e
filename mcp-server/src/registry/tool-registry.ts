// createToolRegistry: where tool services announce themselves, and the catalog of their tools that
// tools/list and tools/call read. Options are checked when it is built, naming the option.
import type { Clock, HttpClient, Logger, Timers } from '@platform/tool-sdk';
import type { GrpcTls } from '@platform/tool-sdk/internal';
import type { ServiceEndpoint, ToolCatalog } from '../remote-tools.ts';
import type { ToolServicePool } from '../tool-services/index.ts';
import { createAppTokenCheck } from './app-token-check.ts';
import { type ResolveHost } from './callback-address.ts';
import { createCallbackNetworks, loopbackNetworks } from './callback-networks.ts';
import { defaultCatalogLimits, type CatalogLimits } from './catalog-limits.ts';
import { createPublishingPolicy } from './publishing-policy.ts';
import { createMemoryRegistrationStore } from './memory-registration-store.ts';
import type { RegistrationStore } from './registration-store.ts';
import { createRegistrations } from './registrations.ts';
import { startRegistryServer, type ServingRegistry } from './registry-server.ts';

export interface ToolRegistryOptions {
  /** The platform API's base address: GET /api/apps/me checks every caller's app token. */
  readonly apiBaseUrl: string;
  readonly httpClient: HttpClient;
  readonly logger: Logger;
  /** Longest time to live granted, in seconds; a service asking for more gets this. */
  readonly maxTtlSeconds: number;
  /** The gateway's clients of the tool services: ListTools at registration, channels held per live registration. */
  readonly toolServices: ToolServicePool;
  /** Whether callback addresses (and the registry's own) may be off loopback, without TLS. Default false. */
  readonly grpcPlaintextOffLoopback?: boolean;
  /**
   * gRPC over TLS: the registry serves it (and requires a client certificate if its settings say
   * so), and any callback address is allowed, dialled by the name registered. Default plaintext.
   */
  readonly tls?: GrpcTls | undefined;
  /**
   * The networks (CIDR blocks) tool services may be reached at (REGISTRY_CALLBACK_NETWORKS): a
   * registration whose callback address resolves elsewhere is refused with FAILED_PRECONDITION
   * before any connection. Default loopback.
   */
  readonly callbackNetworks?: readonly string[];
  /** What a callback address's host resolves to; node:dns by default (a test stands in for it). */
  readonly resolveHost?: ResolveHost;
  /** Time limit of the ListTools made while a Register waits. Default 3 000 (the SDK gives Register 5 s). */
  readonly listToolsTimeoutMs?: number;
  /** Live registrations held at most. Default 1 000. */
  readonly maxRegistrations?: number;
  /** Live registrations one app may hold, so that no app can fill the registry. Default 20. */
  readonly maxRegistrationsPerApp?: number;
  /** Tools per service and bytes of tools per tool, registration, app and in all; each defaults to defaultCatalogLimits'. */
  readonly limits?: Partial<CatalogLimits>;
  /**
   * App keys the operator lets register (REGISTRY_ALLOWED_APPS), among the apps the platform marks
   * as tool publishers; undefined lets every publisher in.
   */
  readonly allowedApps?: readonly string[];
  /**
   * The app key whose tools keep their own names (REGISTRY_PLAIN_NAMES_APP); every other app's
   * tools are `<appKey>__<name>`, so that a name never moves between apps. Undefined: none.
   */
  readonly plainNamesApp?: string;
  /** Lifetime of a cached app-token check, in seconds, capped by the token's expiry; 0 checks every call. Default 60. */
  readonly appCheckCacheSeconds?: number;
  /**
   * Where the registrations are kept: by default this process's memory (on `clock`); PostgreSQL
   * (openPostgresRegistrationStore) for replicas of the gateway that share them. The registry closes it.
   */
  readonly store?: RegistrationStore;
  readonly clock?: Clock;
  /** Arms the sweep of expired registrations; tests pass their manual clock with `clock`. */
  readonly timers?: Timers;
}

export interface ToolRegistry {
  /** The current snapshot; a new one replaces it whenever a tool or its routing changes. */
  catalog(): ToolCatalog;
  /**
   * Calls `listener` with the new catalog whenever what MCP clients see changes (a tool appears,
   * disappears, changes its definition or exposed name); not when only the registration behind
   * the same tools changes. Returns the unsubscribe function.
   */
  onChange(listener: (catalog: ToolCatalog) => void): () => void;
  /** The live registrations, in no particular order. */
  services(): ServiceEndpoint[];
  /** Serves platform.registry.v1.ToolRegistry on `address` (host:port; port 0 takes a free one). */
  serve(address: string): Promise<ServingRegistry>;
  /** Stops every server it started and drops every registration. */
  close(): Promise<void>;
}

function positiveWholeNumber(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`createToolRegistry: ${name} must be a positive whole number (got ${String(value)})`);
  return value;
}

export function createToolRegistry(options: ToolRegistryOptions): ToolRegistry {
  const { apiBaseUrl, httpClient, logger, toolServices, tls, clock, timers } = options;
  // Tokens cross TLS wherever they go; without it, only loopback unless the operator trusts the network.
  const grpcPlaintextOffLoopback = (options.grpcPlaintextOffLoopback ?? false) || tls !== undefined;
  if (!URL.canParse(apiBaseUrl)) throw new TypeError(`createToolRegistry: apiBaseUrl must be an absolute URL (got ${apiBaseUrl})`);
  const maxTtlSeconds = positiveWholeNumber('maxTtlSeconds', options.maxTtlSeconds);
  const listToolsTimeoutMs = positiveWholeNumber('listToolsTimeoutMs', options.listToolsTimeoutMs ?? 3_000);
  const maxRegistrations = positiveWholeNumber('maxRegistrations', options.maxRegistrations ?? 1_000);
  const maxRegistrationsPerApp = positiveWholeNumber('maxRegistrationsPerApp', options.maxRegistrationsPerApp ?? 20);
  const limit = (name: keyof CatalogLimits) => positiveWholeNumber(`limits.${name}`, options.limits?.[name] ?? defaultCatalogLimits[name]);
  const limits: CatalogLimits = Object.freeze({
    maxToolsPerService: limit('maxToolsPerService'),
    maxToolBytes: limit('maxToolBytes'),
    maxServiceBytes: limit('maxServiceBytes'),
    maxAppBytes: limit('maxAppBytes'),
    maxCatalogBytes: limit('maxCatalogBytes'),
  });
  let callbackNetworks;
  try {
    callbackNetworks = createCallbackNetworks(options.callbackNetworks ?? loopbackNetworks);
  } catch (error) {
    throw new TypeError(`createToolRegistry: callbackNetworks: ${(error as Error).message.replace(/^createCallbackNetworks: /, '')}`, { cause: error });
  }
  const appCheckCacheSeconds = options.appCheckCacheSeconds ?? 60;
  if (!Number.isInteger(appCheckCacheSeconds) || appCheckCacheSeconds < 0) {
    throw new TypeError(`createToolRegistry: appCheckCacheSeconds must be 0 or a positive whole number (got ${String(appCheckCacheSeconds)})`);
  }

  const registrations = createRegistrations({
    store: options.store ?? createMemoryRegistrationStore(clock ? { clock } : {}),
    toolServices,
    logger,
    maxTtlSeconds,
    grpcPlaintextOffLoopback,
    listToolsTimeoutMs,
    maxRegistrations,
    maxRegistrationsPerApp,
    limits,
    mayPublish: createPublishingPolicy(options.allowedApps),
    plainNamesApp: options.plainNamesApp,
    callbackNetworks,
    dialByName: tls !== undefined,
    ...(options.resolveHost && { resolveHost: options.resolveHost }),
    ...(clock && { clock }),
    ...(timers && { timers }),
  });
  const checkApp = createAppTokenCheck({ apiBaseUrl, httpClient, cacheTtlSeconds: appCheckCacheSeconds, ...(clock && { clock }) });
  const servers = new Set<ServingRegistry>();
  let closed = false;

  return {
    catalog: () => registrations.catalog(),
    onChange: (listener) => registrations.onChange(listener),
    services: () => registrations.services(),
    async serve(address) {
      if (closed) throw new Error('The tool registry is closed; build a new one to serve again.');
      // Serves once the stored registrations are known, so a replica never answers with a partial catalog.
      await registrations.ready();
      const serving = await startRegistryServer(address, { registrations, checkApp, logger, grpcPlaintextOffLoopback, tls, timers });
      servers.add(serving);
      return {
        address: serving.address,
        async close() {
          servers.delete(serving);
          await serving.close();
        },
      };
    },
    async close() {
      closed = true;
      const closing = [...servers].map((serving) => serving.close());
      servers.clear();
      await Promise.all([registrations.close(), ...closing]);
    },
  };
}
