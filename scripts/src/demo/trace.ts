// `npm run demo -- --trace`: an OTLP/HTTP receiver in the demo's process that the stack exports its
// spans to, and, after the demo, one tool call made with a traceparent of the demo's own, drawn as
// an indented tree: the demo as the MCP client, the gateway, the tool service and the webhook API,
// each span's name and duration, so a new user sees where the time of a call goes.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startOtlpReceiver, type OtlpReceiver } from '../trace/otlp-receiver.ts';
import { closeGatewaySession, personToken } from '../stack/platform-session.ts';
import type { StackAddresses } from '../stack/processes.ts';
import { isComplete, linkedTo, spanNotes, traceTree } from '../trace/tree.ts';
import { traceWaterfallSvg, waterfallSpansOf } from '../trace/waterfall.ts';

/** The variables that point a stack's processes at the receiver, OTLP/HTTP JSON. */
export const traceVariables = (receiver: Pick<OtlpReceiver, 'endpoint'>) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
});

export const startTraceReceiver = (port: number) => startOtlpReceiver(port);

/** What to set on a stack the demo did not start, for its spans to arrive here. */
export const traceHint = (receiver: Pick<OtlpReceiver, 'endpoint'>) =>
  `for --trace, the stack must export to this demo: start it with OTEL_EXPORTER_OTLP_ENDPOINT=${receiver.endpoint} OTEL_EXPORTER_OTLP_PROTOCOL=http/json npm start (or run npm run demo -- --start --trace)`;

/** Epoch milliseconds as nanoseconds, to the microsecond (a double holds no more of an epoch). */
const nsAt = (epochMs: number) => BigInt(Math.round(epochMs * 1e3)) * 1000n;

/**
 * One tool call with a traceparent on its HTTP request (the client's span), and its trace drawn: as
 * a tree in the terminal, and as a waterfall picture into `svgFile` when one is named.
 */
export async function printOneTrace(
  at: StackAddresses,
  receiver: OtlpReceiver,
  person: string,
  print: (line: string) => void,
  svgFile?: string,
): Promise<boolean> {
  const traceId = randomBytes(16).toString('hex');
  const clientSpanId = randomBytes(8).toString('hex');
  const traceparent = `00-${traceId}-${clientSpanId}-01`;
  const { accessToken } = await personToken(at.platformUrl, person, at.mcpUrl);
  // Only the tools/call request carries the trace: the session's other requests are traces of their own.
  const fetchWithTrace: typeof fetch = (input, init) => {
    const body = typeof init?.body === 'string' ? init.body : '';
    if (!body.includes('"tools/call"')) return fetch(input, init);
    const headers = new Headers(init?.headers);
    headers.set('traceparent', traceparent);
    return fetch(input, { ...init, headers });
  };
  const client = new Client({ name: 'telemetry-demo-trace', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(at.mcpUrl), { authProvider: { token: () => Promise.resolve(accessToken) }, fetch: fetchWithTrace }),
  );
  const startedAt = performance.timeOrigin + performance.now();
  const started = performance.now();
  try {
    await client.callTool({ name: 'list_webhooks', arguments: { companyId: 1 } });
  } finally {
    await closeGatewaySession(client);
  }
  const took = performance.now() - started;
  // Each process exports on its own schedule: the trace is drawn once every part of it is in.
  const arrived = await receiver
    .waitFor((spans) => isComplete(spans, traceId, ['mcp-server', 'webhook-tools', 'webhook-api'], clientSpanId), 15_000)
    .then(
      () => true,
      () => false,
    );
  if (!arrived) {
    print(`no whole trace arrived at ${receiver.endpoint} (${receiver.requests} exports so far); ${traceHint(receiver)}`);
    return false;
  }
  print(`\nThe trace of one tool call (trace id ${traceId}):\n`);
  const width = Math.max(13, ...receiver.spans.map((span) => span.service.length));
  print(`${'demo'.padEnd(width)}  ${'tools/call list_webhooks (the MCP client)'.padEnd(72)} ${took.toFixed(1).padStart(8)} ms`);
  for (const line of traceTree(receiver.spans, traceId, { width, depth: 1 })) print(line);
  if (svgFile !== undefined) {
    const client = { service: 'demo', spanId: clientSpanId, parentSpanId: '', name: 'tools/call list_webhooks (the MCP client)' };
    const rows = [{ ...client, startNs: nsAt(startedAt), endNs: nsAt(startedAt + took) }, ...waterfallSpansOf(receiver.spans, traceId, spanNotes)];
    writeFileSync(svgFile, traceWaterfallSvg(rows, `One MCP tools/call across the processes (trace ${traceId})`));
    print(`\nThe same trace as a picture: ${svgFile}`);
  }
  const deliveries = receiver.spans.filter((span) => span.name === 'webhook delivery' && span.links.length > 0);
  if (deliveries.length > 0) {
    const ingestTraces = new Set(deliveries.flatMap((span) => span.links.map((link) => link.traceId)));
    const linked = [...ingestTraces].flatMap((id) => linkedTo(receiver.spans, id));
    print(`\n${linked.length} webhook delivery span(s) of this demo link back to the ingest request that queued their points.`);
  }
  print('');
  return true;
}
