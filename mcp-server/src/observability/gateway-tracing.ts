// The gateway's spans of one MCP request beyond HTTP: the MCP method (continuing a traceparent the
// client put in `params._meta`, as the MCP tracing proposal has it), the registry look-up, and the
// gRPC CallTool as an rpc client span whose context travels in the call's metadata.
import { status } from '@grpc/grpc-js';
import { clip } from '@platform/tool-sdk/internal';
import {
  extractTraceContext,
  inSpan,
  recordFailure,
  SpanKind,
  SpanStatusCode,
  trace,
  traceContext,
  tracer,
  type Attributes,
  type Context,
  type Link,
} from '@platform/tool-sdk/observability';
import type { ToolServiceAnswer } from '../remote-tools.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';

/** Bound on the addresses whose span attributes are kept (far more than one gateway's live services). */
const maxKnownAddresses = 1024;

/** The parent a client asked for in `_meta` (the W3C fields), linked to the HTTP span it arrived in; else that HTTP span. */
function parentOf(meta: unknown, request: Context | undefined) {
  const carrier = meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>) : undefined;
  const active = request ?? traceContext.active();
  if (typeof carrier?.traceparent !== 'string') return { parent: active, links: [] as Link[] };
  const parent = extractTraceContext({ traceparent: carrier.traceparent, tracestate: carrier.tracestate });
  if (!trace.getSpanContext(parent)) return { parent: active, links: [] as Link[] };
  const http = trace.getSpanContext(active);
  return { parent, links: http ? [{ context: http }] : [] };
}

/** Runs one MCP method's handler in its span: `tools/call get_device`, `tools/list`. */
export function inMcpSpan<T>(
  method: string,
  params: { name?: unknown; _meta?: unknown } | undefined,
  request: Context | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const tool = typeof params?.name === 'string' ? clip(params.name, 128) : undefined;
  const { parent, links } = parentOf(params?._meta, request);
  return inSpan(
    tool === undefined ? method : `${method} ${tool}`,
    {
      kind: SpanKind.SERVER,
      parent,
      links,
      attributes: { 'mcp.method.name': method, ...(tool !== undefined && { 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' }) },
    },
    work,
  );
}

/** The catalog look-up of a tool by name, as its own short span. */
export function lookUp<T>(name: string, find: () => T): T {
  const span = tracer().startSpan('registry lookup', { attributes: { 'gen_ai.tool.name': clip(name, 128) } });
  try {
    const found = find();
    span.setAttribute('platform.found', found !== undefined);
    return found;
  } finally {
    span.end();
  }
}

type CallTool<R, O> = (address: string, request: R, token: string, options: O) => Promise<ToolServiceAnswer>;

const codeName = (code: number) => (status as unknown as Record<number, string | undefined>)[code] ?? `CODE_${code}`;

/**
 * CallTool in an rpc client span, its status counted. The span is not made the active one (it has
 * no children here, and an active span costs a context switch and a promise per call): the pool is
 * given its context to put in the call's metadata.
 */
export function tracedCallTool<R, O extends { readonly traceContext?: Context }>(
  callTool: CallTool<R, O>,
  metrics: GatewayMetrics | undefined,
): CallTool<R, O> {
  // A tool service's address names its span's server: parsed once per address, not per call.
  const servers = new Map<string, Attributes>();
  const attributesOf = (address: string) => {
    let attributes = servers.get(address);
    if (!attributes) {
      const at = address.lastIndexOf(':');
      attributes = {
        'rpc.system': 'grpc',
        'rpc.service': 'platform.tools.v1.ToolService',
        'rpc.method': 'CallTool',
        'server.address': address.slice(0, at),
        'server.port': Number(address.slice(at + 1)),
      };
      if (servers.size >= maxKnownAddresses) servers.clear();
      servers.set(address, attributes);
    }
    return attributes;
  };
  return async (address, request, token, options) => {
    const span = tracer().startSpan('platform.tools.v1.ToolService/CallTool', { kind: SpanKind.CLIENT, attributes: attributesOf(address) });
    try {
      const answer = await callTool(address, request, token, { ...options, traceContext: trace.setSpan(traceContext.active(), span) });
      const code: number = answer.ok ? status.OK : answer.code;
      span.setAttribute('rpc.grpc.status_code', code);
      if (code !== (status.OK as number)) span.setStatus({ code: SpanStatusCode.ERROR });
      metrics?.grpcCall(codeName(code));
      return answer;
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  };
}
