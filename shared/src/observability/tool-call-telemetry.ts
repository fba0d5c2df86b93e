// What a tool service built on the SDK reports of its calls: the rpc server span of each CallTool
// (continuing the gateway's trace from the gRPC metadata), and the Prometheus metrics of calls by
// tool and outcome, their latency and the caller check's cache. Tool names are bounded by the
// service's own tools (any other name counts as `unknown`); no person or company is a label.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { extractTraceContext, SpanKind, type SpanOptions } from './tracing.ts';

export const toolCallSpanName = 'platform.tools.v1.ToolService/CallTool';

export function toolCallAttributes(traceContext: Readonly<Record<string, string | undefined>> | undefined): SpanOptions {
  return {
    kind: SpanKind.SERVER,
    parent: extractTraceContext(traceContext),
    attributes: { 'rpc.system': 'grpc', 'rpc.service': 'platform.tools.v1.ToolService', 'rpc.method': 'CallTool' },
  };
}

export interface ToolCallObserver {
  /** One call ended: its tool (or `unknown`), its outcome (`ok`, `tool_error` or the refusal's code), its duration. */
  called(tool: string, outcome: string, seconds: number): void;
  /** One caller check: answered from the cache or not. */
  callerChecked(cached: boolean): void;
}

/** Latency buckets of a tool call, in seconds: a cached check and a fast handler take milliseconds; the gateway's limit is 30 s. */
export const toolCallBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface ToolServiceMetrics extends ToolCallObserver {
  readonly registry: Registry;
}

/** The metrics of one tool service, each labelled with its service name, in a registry of their own. */
export function createToolServiceMetrics(serviceName: string): ToolServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: serviceName });
  collectDefaultMetrics({ register: registry, prefix: 'platform_tool_service_' });
  const calls = new Counter({
    name: 'platform_tool_service_calls_total',
    help: 'Tool calls answered, by tool and outcome (ok, tool_error, or the refusal code).',
    labelNames: ['tool', 'outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'platform_tool_service_call_duration_seconds',
    help: 'Time from the CallTool request to its answer, by tool.',
    labelNames: ['tool'],
    buckets: toolCallBuckets,
    registers: [registry],
  });
  const checks = new Counter({
    name: 'platform_tool_service_caller_checks_total',
    help: 'Checks of delegated tokens, by whether the cache answered (hit) or the platform was asked (miss).',
    labelNames: ['cache'],
    registers: [registry],
  });
  return {
    registry,
    called(tool, outcome, seconds) {
      calls.inc({ tool, outcome });
      duration.observe({ tool }, seconds);
    },
    callerChecked(cached) {
      checks.inc({ cache: cached ? 'hit' : 'miss' });
    },
  };
}
