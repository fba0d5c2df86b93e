// One trace as an indented tree for the terminal: each span's service, name and duration, children
// under their parent in start order, so a reader sees the processes a call crossed and where its
// time went. Spans linked from elsewhere (a delivery and the ingest that queued it) are noted.
import type { ReceivedSpan } from './otlp-receiver.ts';

const milliseconds = (span: ReceivedSpan) => Number(span.endNs - span.startNs) / 1e6;

/** A few attributes worth a glance, never a secret (the spans carry none): the path, route, status, cache. */
export function spanNotes(span: ReceivedSpan): string {
  const a = span.attributes;
  const parts = [
    a['http.route'] === undefined && a['url.path'] !== undefined && span.kind === 3 ? String(a['url.path']) : undefined,
    a['http.response.status_code'] !== undefined ? String(a['http.response.status_code']) : undefined,
    a['rpc.grpc.status_code'] !== undefined ? `grpc ${String(a['rpc.grpc.status_code'])}` : undefined,
    a['platform.cache.hit'] !== undefined ? (a['platform.cache.hit'] ? 'cache hit' : 'cache miss') : undefined,
    a['db.system.name'] !== undefined ? String(a['db.system.name']) : undefined,
  ].filter((part) => part !== undefined);
  return parts.join(', ');
}

const detailOf = (span: ReceivedSpan) => {
  const notes = spanNotes(span);
  return notes ? `  (${notes})` : '';
};

/** The lines of the tree of `traceId`: `service  name  duration`, children indented under their parent. */
export function traceTree(spans: readonly ReceivedSpan[], traceId: string, layout: { readonly width?: number; readonly depth?: number } = {}): string[] {
  const inTrace = spans.filter((span) => span.traceId === traceId).sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  const ids = new Set(inTrace.map((span) => span.spanId));
  const children = new Map<string, ReceivedSpan[]>();
  for (const span of inTrace) {
    const parent = ids.has(span.parentSpanId) ? span.parentSpanId : '';
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const width = layout.width ?? Math.max(...inTrace.map((span) => span.service.length), 8);
  const lines: string[] = [];
  const draw = (span: ReceivedSpan, depth: number) => {
    const label = `${'  '.repeat(depth)}${span.name}${detailOf(span)}`;
    lines.push(`${span.service.padEnd(width)}  ${label.padEnd(72)} ${milliseconds(span).toFixed(1).padStart(8)} ms`);
    for (const child of children.get(span.spanId) ?? []) draw(child, depth + 1);
  };
  for (const root of children.get('') ?? []) draw(root, layout.depth ?? 0);
  return lines;
}

/** The spans elsewhere that link to a span of `traceId` (delivery attempts linked to the ingest). */
export function linkedTo(spans: readonly ReceivedSpan[], traceId: string): ReceivedSpan[] {
  return spans.filter((span) => span.traceId !== traceId && span.links.some((link) => link.traceId === traceId));
}

/** Whether the trace holds spans of every one of `services` and no span whose parent is missing but `rootParent`. */
export function isComplete(spans: readonly ReceivedSpan[], traceId: string, services: readonly string[], rootParent: string): boolean {
  const inTrace = spans.filter((span) => span.traceId === traceId);
  const ids = new Set(inTrace.map((span) => span.spanId));
  return (
    services.every((service) => inTrace.some((span) => span.service === service)) &&
    inTrace.every((span) => span.parentSpanId === rootParent || ids.has(span.parentSpanId))
  );
}
