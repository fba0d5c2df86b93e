// The stack's traces and metrics as an operator sees them: `npm start` with the OTEL_* variables
// pointing at an OTLP/HTTP receiver in the test. One tools/call is one trace across the gateway,
// the tool service and the webhook API, continuing the client's traceparent; the delivery attempts
// of ingested points link to the ingest; no span carries a secret; each service's /metrics counts
// the call and refuses a scrape without its token.
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoReceiver, type DemoReceiver } from '../src/demo/receiver.ts';
import { readings, sendTelemetry } from '../src/demo/device-simulator.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../src/trace/otlp-receiver.ts';
import { closeGatewaySession, personToken } from '../src/stack/platform-session.ts';
import { runNpm, stackEnvironment, stackSecrets, type CommandRun, type StackEnvironment } from './stack-process.ts';

const collectorKey = 'otlp-collector-key-of-the-test';
const credential = randomBytes(18).toString('base64url');
const device = { deviceId: 1001, gatewayId: 'gw-acme-01', connectionTag: 'sensor-bus' };

let receiver: OtlpReceiver | undefined;
let stack: StackEnvironment;
let run: CommandRun | undefined;
let webhooks: DemoReceiver | undefined;
let personTokenValue = '';
const clients: Client[] = [];

/** A client whose every request carries `headers` (a traceparent of the client's own trace). */
async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new McpClient({ name: 'observability-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(stack.mcpUrl), { authProvider: { token: () => Promise.resolve(personTokenValue) }, requestInit: { headers } }),
  );
  clients.push(client);
  return client;
}

const traceparentOf = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

const inTrace = (spans: readonly ReceivedSpan[], traceId: string) => spans.filter((span) => span.traceId === traceId);
const one = (spans: readonly ReceivedSpan[], test: (span: ReceivedSpan) => boolean, what: string): ReceivedSpan => {
  const found = spans.filter(test);
  if (found.length !== 1) throw new Error(`expected one span ${what}, found ${found.length}: ${spans.map((s) => `${s.service}:${s.name}`).join(', ')}`);
  return found[0] as ReceivedSpan;
};

/** The receiver, once beforeAll started it. */
const otlp = (): OtlpReceiver => {
  if (!receiver) throw new Error('no OTLP receiver');
  return receiver;
};
const webhookReceiver = (): DemoReceiver => {
  if (!webhooks) throw new Error('no webhook receiver');
  return webhooks;
};

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  stack = await stackEnvironment({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_EXPORTER_OTLP_HEADERS: `x-collector-key=${collectorKey}`,
  });
  const started = runNpm(['start'], stack.env);
  run = started;
  await started.waitForLine('The stack is ready.', 120_000);
  personTokenValue = (await personToken(stack.platformUrl, 'oscar', stack.mcpUrl)).accessToken;
  webhooks = await startDemoReceiver({ port: Number(stack.env.DEMO_RECEIVER_PORT), path: '/observability' });
}, 150_000);

afterAll(async () => {
  for (const client of clients) await closeGatewaySession(client);
  await webhooks?.close();
  run?.interrupt();
  await run?.exited;
  await receiver?.close();
}, 60_000);

describe('traces of the stack (npm start with OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('makes one trace of a tools/call across mcp-server, the tool service and webhook-api, continuing the client’s traceparent header', async () => {
    const traceId = hex(16);
    const clientSpanId = hex(8);
    const client = await connect({ traceparent: traceparentOf(traceId, clientSpanId) });
    await client.callTool({ name: 'list_webhooks', arguments: { companyId: 1 } });

    const isCall = (span: ReceivedSpan) => span.name === 'tools/call list_webhooks';
    // Each process exports its spans in batches of its own, a span once it ends: the gateway's MCP
    // span and its HTTP parent end last, after the tool service's and the webhook API's arrived.
    const complete = (all: readonly ReceivedSpan[]) => {
      const spans = inTrace(all, traceId);
      const call = spans.find(isCall);
      return (
        call !== undefined &&
        spans.some((span) => span.spanId === call.parentSpanId) &&
        spans.filter((span) => span.name === 'platform.tools.v1.ToolService/CallTool').length === 2 &&
        spans.some((span) => span.service === 'webhook-api' && span.kind === 2)
      );
    };
    const spans = await otlp().waitFor(complete, 30_000);
    const trace = inTrace(spans, traceId);
    const services = new Set(trace.map((span) => span.service));
    expect([...services].sort()).toEqual(expect.arrayContaining(['mcp-server', 'webhook-api', 'webhook-tools']));

    const mcp = one(trace, isCall, 'tools/call');
    const http = one(trace, (span) => span.spanId === mcp.parentSpanId, 'HTTP parent of the MCP span');
    expect(http).toMatchObject({ service: 'mcp-server', name: 'POST /mcp', parentSpanId: clientSpanId, kind: 2 });
    expect(http.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/mcp', 'http.response.status_code': 200 });
    expect(mcp.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'list_webhooks' });
    const children = (parent: ReceivedSpan) => trace.filter((span) => span.parentSpanId === parent.spanId);
    expect(children(http).map((span) => span.name)).toContain('caller check');
    expect(children(mcp).map((span) => span.name)).toEqual(expect.arrayContaining(['registry lookup', 'token exchange']));
    const rpcClient = one(children(mcp), (span) => span.name === 'platform.tools.v1.ToolService/CallTool', 'rpc client');
    expect(rpcClient).toMatchObject({ service: 'mcp-server', kind: 3 });
    expect(rpcClient.attributes).toMatchObject({
      'rpc.system': 'grpc',
      'rpc.service': 'platform.tools.v1.ToolService',
      'rpc.method': 'CallTool',
      'rpc.grpc.status_code': 0,
    });

    const rpcServer = one(children(rpcClient), () => true, 'rpc server');
    expect(rpcServer).toMatchObject({ service: 'webhook-tools', name: 'platform.tools.v1.ToolService/CallTool', kind: 2 });
    expect(rpcServer.attributes).toMatchObject({ 'gen_ai.tool.name': 'list_webhooks', 'rpc.grpc.status_code': 0, 'platform.outcome': 'ok' });
    expect(children(rpcServer).map((span) => span.name)).toEqual(expect.arrayContaining(['caller check', 'execute_tool list_webhooks']));
    const handler = one(children(rpcServer), (span) => span.name === 'execute_tool list_webhooks', 'handler');
    const apiCall = one(children(handler), (span) => span.kind === 3, 'HTTP client');
    expect(apiCall.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200 });
    const apiServer = one(children(apiCall), () => true, 'webhook-api server span');
    expect(apiServer).toMatchObject({ service: 'webhook-api', kind: 2 });
    expect(apiServer.attributes['http.route']).toMatch(/^\/v2\/webhooks/);
    expect(children(apiServer).some((span) => span.attributes['db.system.name'] === 'sqlite')).toBe(true);
  }, 60_000);

  it('continues a traceparent the client put in params._meta', async () => {
    const traceId = hex(16);
    const client = await connect();
    await client.callTool({ name: 'list_webhooks', arguments: { companyId: 1 }, _meta: { traceparent: traceparentOf(traceId, hex(8)) } });
    const servicesOf = (all: readonly ReceivedSpan[]) => new Set(inTrace(all, traceId).map((span) => span.service));
    const spans = await otlp().waitFor((all) => servicesOf(all).size === 3, 30_000);
    expect(servicesOf(spans)).toEqual(new Set(['mcp-server', 'webhook-tools', 'webhook-api']));
  }, 60_000);

  it('links each delivery attempt to the ingest that queued its point, and no span carries a secret', async () => {
    const client = await connect();
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as { structuredContent?: Record<string, unknown>; isError?: boolean };
      expect(result.isError, name).toBeFalsy();
      return result.structuredContent ?? {};
    };
    const { webhook } = (await call('create_webhook', {
      companyId: 1,
      name: `Observability ${Date.now()}`,
      url: webhookReceiver().url,
      deliveryMode: 'Realtime',
      authType: 'Bearer',
      authPayload: { token: credential },
    })) as { webhook: { id: string } };
    try {
      await call('link_device', { webhookConfigId: webhook.id, deviceId: device.deviceId });
      await call('add_scope', { webhookConfigId: webhook.id, deviceId: device.deviceId, scopeLevel: 'Device' });
      const ingestToken = stackSecrets.WEBHOOK_INGEST_TOKEN ?? '';
      await sendTelemetry(stack.webhookApiUrl, ingestToken, readings(device, 'temperature', 2));

      const spans = await otlp().waitFor((all) => all.some((span) => span.name === 'webhook delivery' && span.links.length > 0), 60_000);
      const delivery = spans.find((span) => span.name === 'webhook delivery' && span.links.length > 0) as ReceivedSpan;
      const [link] = delivery.links;
      const ingest = one(spans, (span) => span.spanId === link?.spanId, 'linked ingest');
      expect(ingest).toMatchObject({ service: 'webhook-api', name: 'POST /internal/telemetry', kind: 2, traceId: link?.traceId });
      expect(delivery.traceId).not.toBe(ingest.traceId);
      expect(delivery.attributes).toMatchObject({ 'http.request.method': 'POST', 'server.address': '127.0.0.1', 'platform.outcome': 'delivered' });
    } finally {
      await call('delete_webhook', { webhookConfigId: webhook.id });
    }

    const secrets = [...stack.secrets, personTokenValue, credential, collectorKey, stackSecrets.WEBHOOK_INGEST_TOKEN ?? ''].filter(Boolean);
    const exported = JSON.stringify(otlp().spans.map((span) => ({ ...span, startNs: 0, endNs: 0 })));
    for (const secret of secrets) expect(exported).not.toContain(secret);
    expect(exported).not.toContain('authPayload');
  }, 120_000);
});

/** The value of the sample `name{labels}` in a Prometheus text answer; 0 when absent. */
function sampleOf(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('metrics of the stack', () => {
  const scrape = async (url: string, token?: string) => {
    const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: response.status, text: await response.text() };
  };
  const gatewayMetrics = () => `${new URL(stack.mcpUrl).origin}/metrics`;
  const toolMetrics = () => `http://127.0.0.1:${Number((stack.env.CALLBACK_ADDRESS ?? '').split(':')[1]) + 1}/metrics`;

  it('refuses a scrape without the token with 401, on the gateway, the tool service, webhook-api and the dev platform', async () => {
    for (const url of [gatewayMetrics(), toolMetrics(), `${stack.webhookApiUrl}/metrics`, `${stack.platformUrl}/metrics`])
      expect((await scrape(url)).status, url).toBe(401);
    const platform = await scrape(`${stack.platformUrl}/metrics`, stackSecrets.PLATFORM_METRICS_TOKEN);
    expect(platform.status).toBe(200);
    expect(sampleOf(platform.text, 'platform_dev_http_requests_total', { area: 'api', status: '2xx' })).toBeGreaterThan(0);
  });

  it('counts one tool call, and its latency once, at the gateway and at the tool service', async () => {
    const before = {
      gateway: (await scrape(gatewayMetrics(), stackSecrets.MCP_METRICS_TOKEN)).text,
      tools: (await scrape(toolMetrics(), stackSecrets.METRICS_TOKEN)).text,
    };
    const client = await connect();
    await client.callTool({ name: 'list_webhooks', arguments: { companyId: 1 } });
    const after = {
      gateway: (await scrape(gatewayMetrics(), stackSecrets.MCP_METRICS_TOKEN)).text,
      tools: (await scrape(toolMetrics(), stackSecrets.METRICS_TOKEN)).text,
    };

    const gatewayCall = { tool: 'list_webhooks', service: 'webhook-tools', outcome: 'OK' };
    expect(
      sampleOf(after.gateway, 'platform_gateway_tool_calls_total', gatewayCall) - sampleOf(before.gateway, 'platform_gateway_tool_calls_total', gatewayCall),
    ).toBe(1);
    const gatewayLatency = { tool: 'list_webhooks', service: 'webhook-tools' };
    expect(
      sampleOf(after.gateway, 'platform_gateway_tool_call_duration_seconds_count', gatewayLatency) -
        sampleOf(before.gateway, 'platform_gateway_tool_call_duration_seconds_count', gatewayLatency),
    ).toBe(1);
    expect(sampleOf(after.gateway, 'platform_gateway_grpc_calls_total', { code: 'OK' })).toBeGreaterThan(0);
    expect(sampleOf(after.gateway, 'platform_gateway_registry_tools', {})).toBeGreaterThan(0);
    expect(sampleOf(after.gateway, 'platform_gateway_mcp_requests_total', { method: 'tools/call', outcome: 'ok' })).toBeGreaterThan(0);

    const toolCall = { tool: 'list_webhooks', outcome: 'ok', service: 'webhook-tools' };
    expect(sampleOf(after.tools, 'platform_tool_service_calls_total', toolCall) - sampleOf(before.tools, 'platform_tool_service_calls_total', toolCall)).toBe(
      1,
    );
    const toolLatency = { tool: 'list_webhooks', service: 'webhook-tools' };
    expect(
      sampleOf(after.tools, 'platform_tool_service_call_duration_seconds_count', toolLatency) -
        sampleOf(before.tools, 'platform_tool_service_call_duration_seconds_count', toolLatency),
    ).toBe(1);
    expect(sampleOf(after.tools, 'platform_tool_service_caller_checks_total', { cache: 'hit' })).toBeGreaterThan(0);
  }, 60_000);
});
