// An OTLP/HTTP receiver in-process, for the demo's --trace and the tests: it takes the JSON
// encoding (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) at /v1/traces and keeps every span it is sent,
// flattened with its service's name, so a trace can be drawn or checked without a collector.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value?: AnyValue };

export type AttributeValue = string | number | boolean | undefined;

export interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly links: readonly { readonly traceId: string; readonly spanId: string; readonly attributes: Readonly<Record<string, AttributeValue>> }[];
  readonly events: readonly { readonly name: string; readonly attributes: Readonly<Record<string, AttributeValue>> }[];
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
}

export interface OtlpReceiver {
  /** The base endpoint to give OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string;
  readonly spans: readonly ReceivedSpan[];
  /** How many export requests arrived. */
  readonly requests: number;
  /** Resolves once `test` holds of the spans received (checked on every export); rejects after `timeoutMs`. */
  waitFor(test: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs: number): Promise<readonly ReceivedSpan[]>;
  close(): Promise<void>;
}

const valueOf = (value: AnyValue | undefined): AttributeValue =>
  value?.stringValue ?? (value?.intValue !== undefined ? Number(value.intValue) : (value?.boolValue ?? value?.doubleValue));

const attributesOf = (list: readonly KeyValue[] | undefined) => Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: KeyValue[];
        links?: { traceId: string; spanId: string; attributes?: KeyValue[] }[];
        events?: { name: string; attributes?: KeyValue[] }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

function spansOf(request: ExportRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? 'unknown');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind ?? 0,
        startNs: BigInt(span.startTimeUnixNano),
        endNs: BigInt(span.endTimeUnixNano),
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId, attributes: attributesOf(link.attributes) })),
        events: (span.events ?? []).map((event) => ({ name: event.name, attributes: attributesOf(event.attributes) })),
        statusCode: span.status?.code ?? 0,
      })),
    );
  });
}

export async function startOtlpReceiver(port = 0, host = '127.0.0.1'): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const waiters = new Set<() => void>();
  let requests = 0;
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    if (!req.headers['content-type']?.startsWith('application/json')) {
      res.writeHead(415, { 'content-type': 'text/plain' }).end('Send OTLP/HTTP JSON: OTEL_EXPORTER_OTLP_PROTOCOL=http/json\n');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests += 1;
      try {
        spans.push(...spansOf(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest));
      } catch {
        res.writeHead(400).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const waiter of waiters) waiter();
    });
  });
  server.listen(port, host);
  await once(server, 'listening');
  const { port: bound } = server.address() as AddressInfo;
  return {
    endpoint: `http://${host}:${bound}`,
    spans,
    get requests() {
      return requests;
    },
    waitFor(test, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!test(spans)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(spans);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the spans awaited did not arrive within ${timeoutMs} ms (${spans.length} received)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
