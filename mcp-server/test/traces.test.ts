// The gateway's spans of one tools/call, in-process and every span sampled: the HTTP request, its
// caller check, the MCP method with the registry look-up, the token exchange (or its reuse) and
// the rpc client span, whose context the tool service continues (its server span, caller check and
// handler). The same trace across real processes is scripts/test/observability.test.ts's.
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { keptSpans } from '@platform/devtools/kept-spans';
import { loadTelemetrySettings, SpanKind, startTelemetry, type Telemetry } from '@platform/tool-sdk/observability';
import { afterEach, describe, expect, it } from 'vitest';
import { conformanceToolsForTests, eras, stackForTests, until } from './harness.ts';
import { modernRequest } from '@platform/devtools/modern-request';

const stack = stackForTests();
conformanceToolsForTests(stack);

let telemetry: Telemetry | undefined;
afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
});

/** Starts tracing with every span sampled; the function it returns stops it and answers the spans ended meanwhile. */
function recordSpans(): () => Promise<ReadableSpan[]> {
  const { spans, exporter } = keptSpans<ReadableSpan>();
  telemetry = startTelemetry(loadTelemetrySettings({ OTEL_TRACES_SAMPLER: 'always_on' }, 'gateway-test'), { exporter, exportDelayMs: 10 });
  return async () => {
    await telemetry?.shutdown();
    telemetry = undefined;
    return spans;
  };
}

describe.each(eras)('the spans of a tools/call on the %s revision', (era) => {
  it('make one trace from the HTTP request down to the tool service’s handler', async () => {
    const client = await stack().connect('oscar', era);
    await client.callTool({ name: 'whoami', arguments: {} }); // the delegated token, the tool service's caller check: cached
    const stop = recordSpans();
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.isError).toBeFalsy();
    const spans = await stop();

    const one = (found: ReadableSpan[], what: string) => {
      expect(
        found.map((span) => span.name),
        what,
      ).toHaveLength(1);
      return found[0] as ReadableSpan;
    };
    const named = (name: string) => spans.filter((span) => span.name === name);
    const childrenOf = (parent: ReadableSpan) => spans.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);
    const mcp = one(named('tools/call whoami'), 'the MCP span');
    const http = one(
      spans.filter((span) => span.spanContext().spanId === mcp.parentSpanContext?.spanId),
      'the HTTP span',
    );
    expect(http.name).toBe('POST /mcp');
    expect(http.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/mcp', 'http.response.status_code': 200, 'enduser.id': 'u-oscar' });
    expect(childrenOf(http).map((span) => span.name)).toContain('caller check');
    expect(mcp.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'whoami' });
    expect(childrenOf(mcp).map((span) => span.name)).toEqual(
      expect.arrayContaining(['registry lookup', 'token exchange', 'platform.tools.v1.ToolService/CallTool']),
    );
    expect(one(named('token exchange'), 'the token exchange').attributes).toMatchObject({ 'platform.cache.hit': true });

    const rpc = named('platform.tools.v1.ToolService/CallTool');
    const rpcClient = rpc.find((span) => span.kind === SpanKind.CLIENT);
    const rpcServer = rpc.find((span) => span.kind === SpanKind.SERVER);
    expect(rpcClient?.parentSpanContext?.spanId).toBe(mcp.spanContext().spanId);
    expect(rpcClient?.attributes).toMatchObject({ 'rpc.system': 'grpc', 'rpc.method': 'CallTool', 'rpc.grpc.status_code': 0 });
    expect(rpcServer?.parentSpanContext?.spanId).toBe(rpcClient?.spanContext().spanId);
    expect(rpcServer?.spanContext().traceId).toBe(http.spanContext().traceId);
    expect(rpcServer?.attributes).toMatchObject({ 'enduser.id': 'u-oscar', 'gen_ai.tool.name': 'whoami', 'platform.outcome': 'ok', 'rpc.grpc.status_code': 0 });
    expect(childrenOf(rpcServer as ReadableSpan).map((span) => span.name)).toEqual(expect.arrayContaining(['caller check', 'execute_tool whoami']));
  });
});

describe('the spans of an MCP task', () => {
  it('link the tool’s run after the person’s answer to the call that started the task', async () => {
    const stop = recordSpans();
    const token = await stack().tokenFor('oscar');
    const ask = (method: string, params: Record<string, unknown>) => modernRequest(stack().mcpUrl, token, method, params);
    const started = await ask('tools/call', { name: 'confirm_delete', arguments: { filename: 'traced.txt' } });
    const taskId = String(started.result?.taskId);
    await until(async () => (await ask('tasks/get', { taskId })).result?.status === 'input_required', 'the task asks');
    await ask('tasks/update', { taskId, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } });
    await until(async () => (await ask('tasks/get', { taskId })).result?.status === 'completed', 'the task completes');
    const spans = await stop();
    const call = spans.find((span) => span.name === 'tools/call confirm_delete');
    const run = spans.find((span) => span.name === 'mcp task run');
    expect(run?.links.map((link) => link.context.spanId)).toEqual([call?.spanContext().spanId]);
    expect(run?.links[0]?.context.traceId).toBe(call?.spanContext().traceId);
    // The run itself is part of the answer's request, which carried it out.
    expect(spans.filter((span) => span.parentSpanContext?.spanId === run?.spanContext().spanId).map((span) => span.name)).toContain(
      'platform.tools.v1.ToolService/CallTool',
    );
  });
});
