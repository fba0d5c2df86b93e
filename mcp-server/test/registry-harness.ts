// What the registry's tests stand up on loopback: the registry served on a free port against a
// real dev platform, tool services built on the SDK, a plain gRPC client of the registry, and a
// way to wait for the next catalog. Test code only.
import * as grpc from '@grpc/grpc-js';
import { appToken, devSecrets, type RunningPlatform } from '@platform/dev-platform/testing';
import { loadRegistryProto, type Tool__Output, type ToolRegistryClient } from '@platform/proto';
import { createLogger, createToolApp, defineTool, platformAppIdentity, type ServingToolApp, type Timers, type ToolDefinition } from '@platform/tool-sdk';
import { createHttpClient } from '@platform/tool-sdk/internal';
import { captureLogs, type CapturedLogs } from '@platform/tool-sdk/testing';
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { afterEach, inject } from 'vitest';
import { z } from 'zod';
import type { ToolCatalog } from '../src/remote-tools.ts';
import { createToolServicePool, type ToolServicePool } from '../src/tool-services/index.ts';
import { createToolRegistry, type ToolRegistry, type ToolRegistryOptions } from '../src/registry/tool-registry.ts';
import { openPostgresRegistrationStore } from '../src/registry/postgres/postgres-registration-store.ts';
import { createTokenSeal } from '../src/registry/postgres/token-seal.ts';
import type { RegistrationStore } from '../src/registry/registration-store.ts';

export const appSecrets = {
  'webhook-tools': devSecrets.WEBHOOK_TOOLS_CLIENT_SECRET,
  'fleet-insights': devSecrets.FLEET_INSIGHTS_CLIENT_SECRET,
  'legacy-sync': devSecrets.LEGACY_SYNC_CLIENT_SECRET,
} as const;

export type SeededApp = keyof typeof appSecrets;

/** The seal of the tests' gateways on PostgreSQL, the same for every replica of a test file, as the gateway's client secret makes it. */
export const testTokenSeal = createTokenSeal(devSecrets.MCP_GATEWAY_CLIENT_SECRET);

/** A client-credentials token of a seeded app. */
export const tokenOf = (platform: RunningPlatform, app: SeededApp): Promise<string> => appToken(platform.issuer, app, appSecrets[app]);

export interface Gateway {
  readonly registry: ToolRegistry;
  readonly address: string;
  readonly pool: ToolServicePool;
  readonly logs: CapturedLogs;
  close(): Promise<void>;
}

let database: Promise<string> | undefined;

/**
 * The database of the registries of the test files a process runs (a unit worker runs several in
 * turn; each test has a schema of its own on it), when they run in the vitest project that has
 * PostgreSQL (vitest.config.ts runs the registry's store tests in both); undefined in the other,
 * where the registrations stay in memory.
 */
export function registryDatabase(): Promise<string> | undefined {
  const clusterUrl = inject('postgresUrl') as string | undefined;
  if (!clusterUrl) return undefined;
  database ??= freshDatabase(clusterUrl);
  return database;
}

/** A schema of its own on the registries' database: a registry that shares it with no other test. */
export const freshSchema = (): string => `registry_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;

/** The registrations' store on `schema` of the registries' database, or undefined (in memory) outside the PostgreSQL project. */
export async function storeForTests(logger: ReturnType<typeof createLogger>, schema = freshSchema()): Promise<RegistrationStore | undefined> {
  const url = await registryDatabase();
  return url === undefined ? undefined : openPostgresRegistrationStore(url, { logger, schema, tokenSeal: testTokenSeal });
}

/** The registry served on a free loopback port, logging at debug into memory; on PostgreSQL in that project. */
export async function startGateway(apiBaseUrl: string, overrides: Partial<ToolRegistryOptions> & { readonly schema?: string } = {}): Promise<Gateway> {
  const logs = captureLogs();
  const pool = createToolServicePool();
  const logger = createLogger({ name: 'mcp-server', level: 'debug', destination: logs.destination });
  const { schema, ...options } = overrides;
  const store = options.store ?? (await storeForTests(logger, schema));
  const registry = createToolRegistry({
    apiBaseUrl,
    httpClient: createHttpClient({ timeoutMs: 5_000 }),
    logger,
    maxTtlSeconds: 60,
    toolServices: pool,
    listToolsTimeoutMs: 3_000,
    // As the gateway's settings default: the webhook tools keep their own names.
    plainNamesApp: 'webhook-tools',
    ...(store && { store }),
    ...options,
  });
  const serving = await registry.serve('127.0.0.1:0');
  return {
    registry,
    address: serving.address,
    pool,
    logs,
    async close() {
      await registry.close();
      pool.close();
    },
  };
}

/** A small tool; `extra` changes what clients see of it. */
export function sampleTool(name: string, extra: { description?: string; requiresPermission?: string } = {}): ToolDefinition {
  return defineTool({
    name,
    title: `The ${name} tool`,
    description: extra.description ?? `Does ${name}.`,
    inputSchema: z.strictObject({ text: z.string().optional() }),
    ...(extra.requiresPermission !== undefined && { requiresPermission: extra.requiresPermission }),
    annotations: { readOnlyHint: true },
    handler: (args) => ({ echoed: args.text ?? '' }),
  });
}

export interface ToolServiceSpec {
  readonly platform: RunningPlatform;
  readonly gatewayAddress: string;
  readonly serviceName: string;
  readonly tools: readonly ToolDefinition[];
  readonly app?: SeededApp;
  readonly ttlSeconds?: number;
  /** Default true: the SDK registers and keeps the registration alive. */
  readonly register?: boolean;
  /** Times the registration's waits; a test passes the manual clock its gateway runs on. */
  readonly timers?: Timers;
}

/** A real tool service on the SDK, on a free loopback port. */
export async function startToolService(spec: ToolServiceSpec): Promise<ServingToolApp> {
  const app = spec.app ?? 'webhook-tools';
  const settings = {
    apiBaseUrl: spec.platform.issuer,
    issuerUrl: spec.platform.issuer,
    platformAiBaseUrl: spec.platform.aiUrl,
    appClientId: app,
    appClientSecret: appSecrets[app],
    meCacheTtlSeconds: 60,
    httpTimeoutMs: 5_000,
    gatewayAddress: spec.gatewayAddress,
    callbackAddress: '127.0.0.1:0',
    serviceName: spec.serviceName,
    ttlSeconds: spec.ttlSeconds ?? 30,
  };
  const toolApp = createToolApp({
    settings,
    identity: platformAppIdentity(settings),
    logger: createLogger({ name: spec.serviceName, level: 'silent' }),
    registration: { backoff: { initialMs: 50, maxMs: 500 }, callTimeoutMs: 10_000 },
    ...(spec.timers && { timers: spec.timers }),
  });
  toolApp.registerTools(spec.tools);
  return toolApp.serve({ register: spec.register ?? true });
}

/** Resolves with the first catalog `accept` takes, from now on; rejects after `timeoutMs`. */
export function catalogWhere(registry: ToolRegistry, accept: (catalog: ToolCatalog) => boolean, timeoutMs = 15_000): Promise<ToolCatalog> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no catalog as expected within ${timeoutMs} ms; the last lists ${JSON.stringify(registry.catalog().tools.map((t) => t.exposedName))}`));
    }, timeoutMs);
    const stop = registry.onChange((catalog) => {
      if (!accept(catalog)) return;
      clearTimeout(timer);
      stop();
      resolve(catalog);
    });
  });
}

export const namesIn = (catalog: ToolCatalog): string[] => catalog.tools.map((tool) => tool.exposedName);

export type RegistryAnswer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly code: grpc.status; readonly details: string };

export interface RegistryClient {
  register(
    request: { serviceName: string; callbackAddress: string; ttlSeconds: number },
    authorization: readonly string[],
  ): Promise<RegistryAnswer<{ registrationId: string; ttlSeconds: number }>>;
  heartbeat(registrationId: string, authorization: readonly string[]): Promise<RegistryAnswer<{ ttlSeconds: number }>>;
  deregister(registrationId: string, authorization: readonly string[]): Promise<RegistryAnswer<object>>;
  close(): void;
}

/** A plain gRPC client of the registry: `authorization` holds the metadata values to send, as given. */
export function registryClient(address: string): RegistryClient {
  const client: ToolRegistryClient = new (loadRegistryProto().ToolRegistry)(address, grpc.credentials.createInsecure());
  const send = <T>(
    call: (metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<T>) => unknown,
    authorization: readonly string[],
  ) => {
    const metadata = new grpc.Metadata();
    for (const value of authorization) metadata.add('authorization', value);
    return new Promise<RegistryAnswer<T>>((resolve) => {
      call(metadata, { deadline: Date.now() + 15_000 }, (error, value) => {
        if (error) resolve({ ok: false, code: error.code, details: error.details });
        else resolve({ ok: true, value: value as T });
      });
    });
  };
  return {
    register: (request, authorization) => send((metadata, options, callback) => client.Register(request, metadata, options, callback), authorization),
    heartbeat: (registrationId, authorization) =>
      send((metadata, options, callback) => client.Heartbeat({ registrationId }, metadata, options, callback), authorization),
    deregister: (registrationId, authorization) =>
      send((metadata, options, callback) => client.Deregister({ registrationId }, metadata, options, callback), authorization),
    close: () => {
      client.close();
    },
  };
}

export const bearer = (token: string): string[] => [`Bearer ${token}`];

/** What a test starts (gateways, services, clients), closed after it, the last first; and a gateway on `issuer()` among them. */
export function startedPartsForTests(platform: () => RunningPlatform) {
  const started: { close(): Promise<void> | void }[] = [];
  afterEach(async () => {
    for (const part of started.splice(0).reverse()) await part.close();
  });
  /** A gateway checking app tokens at the platform (or at `apiBaseUrl`), closed after the test. */
  async function gateway(overrides: Parameters<typeof startGateway>[1] = {}, apiBaseUrl = platform().issuer): Promise<Gateway> {
    const running = await startGateway(apiBaseUrl, overrides);
    started.push(running);
    return running;
  }
  /** A real tool service on the platform, closed after the test. */
  async function toolService(spec: Omit<ToolServiceSpec, 'platform'>): Promise<ServingToolApp> {
    const serving = await startToolService({ platform: platform(), ...spec });
    started.push({ close: () => serving.close(1_000) });
    return serving;
  }
  /** A plain gRPC client of the registry at `address`, closed after the test. */
  function client(address: string): RegistryClient {
    const registrar = registryClient(address);
    started.push(registrar);
    return registrar;
  }
  /** Every catalog `registry` announces from now on, until the test ends. */
  function announced(registry: ToolRegistry): ToolCatalog[] {
    const seen: ToolCatalog[] = [];
    started.push({ close: registry.onChange((catalog) => seen.push(catalog)) });
    return seen;
  }
  return { started, gateway, toolService, client, announced };
}

/** A tool as a service announces it on the wire, the bare minimum: for the catalog's unit tests. */
export const announcedTool = (name: string, description = 'Does it.'): Tool__Output => ({
  name,
  title: '',
  description,
  inputSchemaJson: '{"type":"object"}',
  outputSchemaJson: '',
  requiresPermission: '',
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  timeoutMs: 0,
  taskSupport: 'TASK_SUPPORT_FORBIDDEN',
});
