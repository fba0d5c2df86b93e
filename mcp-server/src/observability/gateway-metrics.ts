// The gateway's Prometheus metrics: MCP requests by method and outcome, tool calls by tool, service
// and outcome with their latency, the token exchange's cache and latency, the caller check's
// cache, the registry's services and tools, open sessions and streams, and the gRPC calls' status
// codes. Labels stay bounded: MCP methods from a fixed list, tools and services from the live
// catalog (a tool's series go when it leaves the catalog), never a person or a company.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const namespace = 'platform_gateway_';

/** MCP methods counted by name; any other is `other`, so a client cannot grow the label set. */
const knownMethods: ReadonlySet<string> = new Set([
  'initialize',
  'notifications/initialized',
  'ping',
  'tools/list',
  'tools/call',
  'server/discover',
  'subscriptions/listen',
  'notifications/cancelled',
  'stream',
  'end session',
]);

export const methodLabel = (method: string | undefined) => (method !== undefined && knownMethods.has(method) ? method : 'other');

/** Latency buckets, in seconds, from a cached exchange (sub-millisecond) to the tool call limit. */
const buckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface GatewaySources {
  /** The live catalog's size. */
  catalog(): { readonly services: number; readonly tools: number };
  sessions(): { readonly open: number; readonly streams: number; readonly listens: number };
  /** MCP tasks whose tool runs at this replica now. */
  tasksRunning?(): number;
}

export interface GatewayMetrics {
  readonly registry: Registry;
  mcpRequest(method: string | undefined, outcome: string): void;
  toolCall(tool: string, service: string, outcome: string, seconds: number): void;
  /** A delegated token was reused from the cache (true) or exchanged (false); an exchange's duration and outcome. */
  exchange(cached: boolean, seconds?: number, outcome?: string): void;
  callerCheck(cached: boolean): void;
  grpcCall(code: string): void;
  /** A task reached `status` (working, input_required, completed, failed, cancelled) by a change made here. */
  taskStatus(status: string): void;
  /** Removes the series of every tool not in `live` (the catalog now), so gone tools and services take no room in /metrics. */
  keepTools(live: Iterable<{ readonly tool: string; readonly service: string }>): void;
}

export function createGatewayMetrics(sources: GatewaySources): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: namespace });
  const registers = [registry];
  const mcpRequests = new Counter({
    name: `${namespace}mcp_requests_total`,
    help: 'MCP requests (HTTP POST, GET stream, DELETE session), by MCP method and outcome (ok, client_error, server_error).',
    labelNames: ['method', 'outcome'],
    registers,
  });
  const toolCalls = new Counter({
    name: `${namespace}tool_calls_total`,
    help: 'Tool calls, by exposed tool name, tool service and outcome (OK, TOOL_ERROR, a gRPC status name, or NO_DELEGATED_TOKEN).',
    labelNames: ['tool', 'service', 'outcome'],
    registers,
  });
  const toolCallDuration = new Histogram({
    name: `${namespace}tool_call_duration_seconds`,
    help: 'Time of a tool call at the gateway, token exchange and gRPC call included, by tool and service.',
    labelNames: ['tool', 'service'],
    buckets,
    registers,
  });
  const exchanges = new Counter({
    name: `${namespace}token_exchange_cache_total`,
    help: 'Delegated tokens asked for, by whether one was reused from the cache (hit) or exchanged (miss).',
    labelNames: ['cache'],
    registers,
  });
  const exchangeDuration = new Histogram({
    name: `${namespace}token_exchange_duration_seconds`,
    help: 'Time of one RFC 8693 token exchange at the platform, by outcome (ok, error).',
    labelNames: ['outcome'],
    buckets,
    registers,
  });
  const callerChecks = new Counter({
    name: `${namespace}caller_checks_total`,
    help: 'Checks of MCP callers’ tokens, by whether the cache answered (hit) or the platform was asked (miss).',
    labelNames: ['cache'],
    registers,
  });
  const grpcCalls = new Counter({
    name: `${namespace}grpc_calls_total`,
    help: 'CallTool requests to tool services, by gRPC status code name.',
    labelNames: ['code'],
    registers,
  });
  new Gauge({
    name: `${namespace}registry_services`,
    help: 'Tool services in the live catalog.',
    registers,
    collect() {
      this.set(sources.catalog().services);
    },
  });
  new Gauge({
    name: `${namespace}registry_tools`,
    help: 'Tools in the live catalog.',
    registers,
    collect() {
      this.set(sources.catalog().tools);
    },
  });
  new Gauge({
    name: `${namespace}open_sessions`,
    help: 'Open 2025-11-25 MCP sessions.',
    registers,
    collect() {
      this.set(sources.sessions().open);
    },
  });
  new Gauge({
    name: `${namespace}open_streams`,
    help: 'Open server-to-client streams, by kind (get: a session’s GET stream; listen: a 2026-07-28 subscriptions/listen stream).',
    labelNames: ['kind'],
    registers,
    collect() {
      const { streams, listens } = sources.sessions();
      this.set({ kind: 'get' }, streams);
      this.set({ kind: 'listen' }, listens);
    },
  });
  const taskStatuses = new Counter({
    name: `${namespace}task_status_changes_total`,
    help: 'MCP tasks reaching a status (working, input_required, completed, failed, cancelled), by changes this replica made.',
    labelNames: ['status'],
    registers,
  });
  new Gauge({
    name: `${namespace}tasks_running`,
    help: 'MCP tasks whose tool runs at this replica now.',
    registers,
    collect() {
      this.set(sources.tasksRunning?.() ?? 0);
    },
  });
  /** The label values each tool's series were made with, by tool and service: what keepTools removes. */
  const toolSeries = new Map<string, { readonly tool: string; readonly service: string; readonly outcomes: Set<string> }>();
  const seriesKey = (tool: string, service: string) => JSON.stringify([tool, service]);
  return {
    registry,
    mcpRequest: (method, outcome) => {
      mcpRequests.inc({ method: methodLabel(method), outcome });
    },
    toolCall(tool, service, outcome, seconds) {
      const key = seriesKey(tool, service);
      const seen = toolSeries.get(key) ?? { tool, service, outcomes: new Set<string>() };
      seen.outcomes.add(outcome);
      toolSeries.set(key, seen);
      toolCalls.inc({ tool, service, outcome });
      toolCallDuration.observe({ tool, service }, seconds);
    },
    exchange(cached, seconds, outcome = 'ok') {
      exchanges.inc({ cache: cached ? 'hit' : 'miss' });
      if (seconds !== undefined) exchangeDuration.observe({ outcome }, seconds);
    },
    callerCheck: (cached) => {
      callerChecks.inc({ cache: cached ? 'hit' : 'miss' });
    },
    grpcCall: (code) => {
      grpcCalls.inc({ code });
    },
    taskStatus: (status) => {
      taskStatuses.inc({ status });
    },
    keepTools(live) {
      const kept = new Set([...live].map(({ tool, service }) => seriesKey(tool, service)));
      for (const [key, { tool, service, outcomes }] of toolSeries) {
        if (kept.has(key)) continue;
        for (const outcome of outcomes) toolCalls.remove({ tool, service, outcome });
        toolCallDuration.remove({ tool, service });
        toolSeries.delete(key);
      }
    },
  };
}
