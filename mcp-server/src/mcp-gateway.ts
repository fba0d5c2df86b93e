// The gateway, assembled: the caller check, the tool registry (gRPC), the token exchange, the
// tool services' clients and the MCP endpoint for both revisions. main.ts and the tests build it
// here; nothing listens until they attach `app` to an HTTP server and call `registry.serve`.
import { createMcpHandler } from '@modelcontextprotocol/server';
import { isPlatformError, type Clock, type HttpClient, type Logger, type Timers } from '@platform/tool-sdk';
import { channelCredentialsOf, createCallerCheck, createGrpcTls, createHttpClient, platformFetch } from '@platform/tool-sdk/internal';
import type { Express, RequestHandler } from 'express';
import { createDelegatedTokens, createPermissionProbe, isDelegationError } from './delegation/index.ts';
import { createHttpApp } from './http/http-app.ts';
import { createLegacySessions } from './http/legacy-sessions.ts';
import { createProtectedResource } from './http/protected-resource.ts';
import { createStreamGuard } from './http/stream-guard.ts';
import type { StreamLedger } from './http/stream-ledger.ts';
import { requireCaller } from './http/require-caller.ts';
import { createGatewayServer, type ServedEra } from './mcp/gateway-server.ts';
import { createMemorySpentStates, createQuestionRounds, createRequestStates, type SpentStates } from './questions/index.ts';
import { createToolGateway } from './mcp/tool-gateway.ts';
import { createToolRegistry, type RegistrationStore, type ToolRegistry } from './registry/index.ts';
import type { McpServerSettings } from './settings.ts';
import { delegationFailure, toolResult } from './tool-results/index.ts';
import { createMemoryTaskStore } from './tasks/memory-task-store.ts';
import { createGatewayTasks } from './tasks/gateway-tasks.ts';
import type { TaskStore } from './tasks/task-records.ts';
import { createToolServicePool, type CallToolOptions, type ToolCallRequest, type ToolServicePool } from './tool-services/index.ts';
import { createGatewayMetrics, type GatewayMetrics } from './observability/gateway-metrics.ts';
import { tracedCallTool } from './observability/gateway-tracing.ts';
import { carryRequestContext, traceMcpRequests } from './observability/mcp-request-telemetry.ts';

export interface McpGatewayOptions {
  readonly settings: McpServerSettings;
  readonly logger: Logger;
  readonly httpClient?: HttpClient;
  /**
   * The tool services' clients; by default a grpc-js pool of its own. The benchmark passes one
   * that answers CallTool in-process, to measure the gateway without its gRPC hop.
   */
  readonly toolServices?: ToolServicePool;
  /** Where the registrations are kept: this process's memory by default; PostgreSQL shared by the replicas (main.ts opens it with DATABASE_URL). */
  readonly registrationStore?: RegistrationStore;
  /**
   * Where each person's open streams are counted: this gateway alone by default; PostgreSQL shared by
   * the replicas (main.ts opens it with DATABASE_URL), so the per-person bound holds across them. The gateway closes it.
   */
  readonly streamLedger?: StreamLedger;
  /** Where answered request states are remembered: this process's memory by default; PostgreSQL shared by the replicas. */
  readonly spentStates?: SpentStates;
  /** Where MCP tasks are kept: this process's memory by default; PostgreSQL shared by the replicas. The gateway closes it. */
  readonly taskStore?: TaskStore;
  /** What the caches' lifetimes, the sessions' idleness and the registrations' expiries are judged by; default the system's. */
  readonly clock?: Clock;
  /** Arms the registry's sweep of expired registrations; a test passes its manual clock (with `clock`) and moves it. */
  readonly timers?: Timers;
}

export interface McpGateway {
  /** The HTTP face: the MCP endpoint and the protected-resource metadata. */
  readonly app: Express;
  readonly registry: ToolRegistry;
  /** The Prometheus metrics; main.ts serves them on /metrics when the settings allow it. */
  readonly metrics: GatewayMetrics;
  /** Open 2025-11-25 sessions, their GET streams, and open 2026-07-28 subscriptions/listen streams. */
  sessions(): { readonly open: number; readonly streams: number; readonly listens: number };
  /** Ends the sessions and streams, the registry and the tool services' channels. */
  close(): Promise<void>;
}

/** What a gRPC answer of a tool service may carry beyond its counted bytes: field tags, lengths, hints. */
const answerEnvelopeBytes = 64 * 1024;
/** Tool arguments travel to the tool service in one message; it takes at most 1 MiB. */
const maxBodyBytes = 1024 * 1024;
const scope = 'api';
/**
 * How old the permissions tools/list is filtered by may be, in seconds: the webhook API's own bound
 * (WEBHOOK_PERMISSIONS_MAX_AGE's default) and the SDK's, so a revoked permission leaves the list
 * within the time the calls that need it start being refused, on both revisions.
 */
export const listPermissionsMaxAgeSeconds = 2;

/** The request's span and count start before the caller check, so the check is part of the request's trace. */
function observedRequireCaller(observe: RequestHandler, guard: RequestHandler): RequestHandler {
  return (req, res, next) => {
    let checked: unknown;
    observe(req, res, () => {
      checked = guard(req, res, (error?: unknown) => {
        carryRequestContext(req);
        next(error);
      });
    });
    return checked;
  };
}

export function createMcpGateway(options: McpGatewayOptions): McpGateway {
  const { settings, logger } = options;
  const time = { ...(options.clock && { clock: options.clock }) };
  // Requests for the platform's API and issuer go through its back channel when one is set.
  const backChannel = platformFetch({ backChannelUrl: settings.backChannelUrl, identities: [settings.apiBaseUrl, settings.issuerUrl] });
  const httpClient = options.httpClient ?? createHttpClient({ timeoutMs: settings.httpTimeoutMs, ...(backChannel && { fetch: backChannel }) });
  // A tool service's answer is read up to what one registration may list or one result may hold,
  // plus room for the envelope; a larger one is refused as it arrives, never held whole.
  const maxAnswerBytes = Math.max(settings.catalogLimits.maxServiceBytes, settings.maxToolResultBytes) + answerEnvelopeBytes;
  const tls = settings.grpcTls && createGrpcTls(settings.grpcTls);
  const toolServices = options.toolServices ?? createToolServicePool({ maxAnswerBytes, channelCredentials: channelCredentialsOf(tls) });
  const registry = createToolRegistry({
    apiBaseUrl: settings.apiBaseUrl,
    httpClient,
    logger: logger.child({ part: 'registry' }),
    maxTtlSeconds: settings.registrationMaxTtlSeconds,
    maxRegistrations: settings.registryMaxRegistrations,
    maxRegistrationsPerApp: settings.registryMaxRegistrationsPerApp,
    limits: settings.catalogLimits,
    ...(settings.registryAllowedApps && { allowedApps: settings.registryAllowedApps }),
    callbackNetworks: settings.registryCallbackNetworks,
    ...(settings.registryPlainNamesApp !== undefined && { plainNamesApp: settings.registryPlainNamesApp }),
    grpcPlaintextOffLoopback: settings.grpcPlaintextOffLoopback,
    tls,
    toolServices,
    appCheckCacheSeconds: settings.meCacheTtlSeconds,
    ...(options.registrationStore && { store: options.registrationStore }),
    ...time,
    ...(options.timers && { timers: options.timers }),
  });
  const metrics = createGatewayMetrics({
    catalog: () => {
      const { tools } = registry.catalog();
      return { services: new Set(tools.map((tool) => tool.service.registrationId)).size, tools: tools.length };
    },
    sessions: () => ({ open: legacy.size, streams: streams.open.get, listens: streams.open.listen }),
    tasksRunning: () => tasks.running,
  });
  const delegatedTokens = createDelegatedTokens({
    issuerUrl: settings.issuerUrl,
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    timeoutMs: settings.httpTimeoutMs,
    ...(backChannel && { fetch: backChannel }),
    ...time,
    observe: {
      asked: (cached) => {
        metrics.exchange(cached);
      },
      exchanged: (seconds, ok) => {
        metrics.exchange(false, seconds, ok ? 'ok' : 'error');
      },
    },
  });
  const permissions = createPermissionProbe({
    apiBaseUrl: settings.apiBaseUrl,
    httpClient,
    cacheTtlSeconds: settings.meCacheTtlSeconds,
    ...(settings.meCacheTtlSeconds > 0 && { maxAgeSeconds: Math.min(listPermissionsMaxAgeSeconds, settings.meCacheTtlSeconds) }),
    ...time,
  });
  const gateway = createToolGateway({
    catalog: () => registry.catalog(),
    delegatedTokens,
    permissionsOf: (token, appClientId) => permissions.permissionsOf(token, appClientId),
    callTool: tracedCallTool(
      (address, request: ToolCallRequest, token, callOptions: CallToolOptions) => toolServices.callTool(address, request, token, callOptions),
      metrics,
    ),
    toolResult: (answer, tool, resultOptions) => toolResult(answer, tool, { ...resultOptions, maxResultBytes: settings.maxToolResultBytes }),
    delegationFailure,
    failureCode: (error) => (isDelegationError(error) ? error.code : isPlatformError(error) ? error.code : 'UNEXPECTED'),
    callTimeoutMs: settings.toolCallTimeoutMs,
    logger: logger.child({ part: 'tools' }),
    observe: (tool, service, outcome, seconds) => {
      metrics.toolCall(tool, service, outcome, seconds);
    },
  });
  const spentStates = options.spentStates ?? createMemorySpentStates(options.clock);
  const rounds = createQuestionRounds({
    states: createRequestStates({ secret: settings.clientSecret, ttlMs: settings.inputStateTtlSeconds * 1000, clock: options.clock ?? Date.now }),
    spent: spentStates,
    maxRounds: settings.inputMaxRounds,
    policy: { allowLoopbackHttp: settings.elicitationLoopbackHttp },
    logger: logger.child({ part: 'questions' }),
  });
  const taskStore = options.taskStore ?? createMemoryTaskStore(options.clock);
  const tasks = createGatewayTasks({
    settings,
    store: taskStore,
    gateway,
    catalog: () => registry.catalog(),
    delegatedTokens,
    counted: (status) => {
      metrics.taskStatus(status);
    },
    logger: logger.child({ part: 'tasks' }),
    clock: options.clock ?? Date.now,
    timers: options.timers,
  });
  const newServer = (era: ServedEra) =>
    createGatewayServer({
      gateway,
      catalog: () => registry.catalog(),
      rounds,
      maxRounds: settings.inputMaxRounds,
      era,
      tasks: { tasks, pollIntervalMs: settings.tasks.pollIntervalMs },
    });

  const checkCaller = createCallerCheck({
    apiBaseUrl: settings.apiBaseUrl,
    audience: settings.publicUrl,
    httpClient,
    cacheTtlSeconds: settings.meCacheTtlSeconds,
    actor: 'person-only',
    ...time,
    observe: (cached) => {
      metrics.callerCheck(cached);
    },
  });
  const streams = createStreamGuard({
    maxPerCaller: settings.maxStreamsPerCaller,
    maxStreams: settings.maxStreams,
    recheckMs: settings.streamRecheckSeconds * 1000,
    checkCaller,
    logger,
    ledger: options.streamLedger,
    ...time,
    ...(options.timers && { timers: options.timers }),
  });
  const modern = createMcpHandler(() => newServer('modern'), {
    legacy: 'reject',
    onerror: (error) => {
      logger.debug({ err: error }, 'MCP request refused');
    },
    maxRequestBodySize: maxBodyBytes,
    // The stream guard bounds them per person first; this is the handler's own bound in all.
    maxSubscriptions: settings.maxStreams + settings.maxStreamsPerCaller,
  });
  const legacy = createLegacySessions({
    newServer: () => newServer('legacy'),
    maxSessions: settings.maxSessions,
    maxSessionsPerCaller: settings.maxSessionsPerCaller,
    idleMs: settings.sessionIdleSeconds * 1000,
    logger,
    streams,
    ledger: options.streamLedger,
    ...time,
    ...(options.timers && { timers: options.timers }),
  });
  const unsubscribe = registry.onChange((catalog) => {
    logger.info({ version: catalog.version, tools: catalog.tools.length }, 'the tool list changed');
    metrics.keepTools(catalog.tools.map((tool) => ({ tool: tool.exposedName, service: tool.service.serviceName })));
    modern.notify.toolsChanged();
    legacy.toolsChanged();
  });

  const protectedResource = createProtectedResource({ resourceUrl: settings.publicUrl, authorizationServer: settings.issuerUrl, scopes: [scope] });
  const app = createHttpApp({
    path: new URL(settings.publicUrl).pathname,
    allowedHosts: settings.allowedHosts,
    allowedOrigins: settings.allowedOrigins,
    protectedResource,
    requireCaller: observedRequireCaller(
      traceMcpRequests(new URL(settings.publicUrl).pathname, metrics),
      requireCaller(checkCaller, { resourceMetadataUrl: protectedResource.metadataUrl, scope }),
    ),
    modern,
    legacy,
    streams,
    maxBodyBytes,
    logger,
  });

  return {
    app,
    registry,
    metrics,
    sessions: () => ({ open: legacy.size, streams: streams.open.get, listens: streams.open.listen }),
    async close() {
      unsubscribe();
      streams.close();
      await legacy.close();
      await modern.close();
      await tasks.close();
      await registry.close();
      toolServices.close();
      await taskStore.close();
      await spentStates.close();
      await options.streamLedger?.close();
    },
  };
}
