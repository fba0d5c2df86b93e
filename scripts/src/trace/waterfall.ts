// One trace as a waterfall picture (SVG), the way Jaeger or Grafana Tempo draws it: a row per span,
// its service and name indented under its parent on the left, a bar from its start to its end on a
// shared time axis on the right, coloured by service. `npm run demo -- --trace --trace-svg <file>`
// writes it; the README's picture of a trace is one. Names come from the spans, so every text is
// escaped: a span name is data, not markup.
import type { ReceivedSpan } from './otlp-receiver.ts';

/** A row the picture draws: a received span, or the demo's own client span (not exported). */
export interface WaterfallSpan {
  readonly service: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly startNs: bigint;
  readonly endNs: bigint;
  /** A short note after the name: the status, the cache, the database. */
  readonly detail?: string;
  readonly failed?: boolean;
}

const layout = { width: 1100, labelWidth: 470, rowHeight: 24, top: 64, bottom: 28, padding: 16 } as const;
const palette = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#e15759'] as const;

/** Control characters have no place in XML 1.0 text (tab and newline only mislay the layout). */
function printable(text: string): string {
  let kept = '';
  for (const c of text) if (c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) !== 0x7f) kept += c;
  return kept;
}

const escaped = (text: string) =>
  printable(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

const ms = (ns: bigint) => Number(ns) / 1e6;

/** A round step for the time axis: about six ticks over `totalMs`. */
function tickStep(totalMs: number): number {
  const rough = totalMs / 6;
  const power = 10 ** Math.floor(Math.log10(rough));
  return ([1, 2, 5, 10] as const).map((m) => m * power).find((step) => step >= rough) ?? rough;
}

/** The rows in tree order (children under their parent, by start), each with its depth. */
function inTreeOrder(spans: readonly WaterfallSpan[]): { span: WaterfallSpan; depth: number }[] {
  const ids = new Set(spans.map((span) => span.spanId));
  const children = new Map<string, WaterfallSpan[]>();
  for (const span of [...spans].sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0))) {
    const parent = ids.has(span.parentSpanId) ? span.parentSpanId : '';
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const rows: { span: WaterfallSpan; depth: number }[] = [];
  const visit = (span: WaterfallSpan, depth: number) => {
    rows.push({ span, depth });
    for (const child of children.get(span.spanId) ?? []) visit(child, depth + 1);
  };
  for (const root of children.get('') ?? []) visit(root, 0);
  return rows;
}

/** The SVG document of `spans` (one trace), titled `title`. */
export function traceWaterfallSvg(spans: readonly WaterfallSpan[], title: string): string {
  const rows = inTreeOrder(spans);
  const [first] = rows;
  if (!first) throw new Error('no span to draw');
  const start = rows.reduce((min, { span }) => (span.startNs < min ? span.startNs : min), first.span.startNs);
  const end = rows.reduce((max, { span }) => (span.endNs > max ? span.endNs : max), first.span.endNs);
  const totalMs = Math.max(ms(end - start), 0.001);
  const barLeft = layout.labelWidth + layout.padding;
  const barWidth = layout.width - barLeft - layout.padding - 70;
  const x = (ns: bigint) => barLeft + (ms(ns - start) / totalMs) * barWidth;
  const height = layout.top + rows.length * layout.rowHeight + layout.bottom;
  const services = [...new Set(rows.map(({ span }) => span.service))];
  const colour = (service: string) => palette[services.indexOf(service) % palette.length] ?? palette[0];

  const step = tickStep(totalMs);
  const ticks: string[] = [];
  for (let t = 0; t <= totalMs + 1e-9; t += step) {
    const tx = barLeft + (t / totalMs) * barWidth;
    ticks.push(
      `<line x1="${tx.toFixed(1)}" y1="${layout.top - 8}" x2="${tx.toFixed(1)}" y2="${height - layout.bottom}" class="grid"/>`,
      `<text x="${tx.toFixed(1)}" y="${layout.top - 12}" class="tick">${Number(t.toPrecision(6))} ms</text>`,
    );
  }
  const legend = services.map((service, i) => {
    const lx = layout.padding + i * 150;
    return `<rect x="${lx}" y="30" width="12" height="12" rx="2" fill="${colour(service)}"/><text x="${lx + 18}" y="40" class="legend">${escaped(service)}</text>`;
  });
  const body = rows.map(({ span, depth }, i) => {
    const y = layout.top + i * layout.rowHeight;
    const left = x(span.startNs);
    const width = Math.max(x(span.endNs) - left, 1.5);
    const label = `${span.name}${span.detail ? `  (${span.detail})` : ''}`;
    const duration = `${ms(span.endNs - span.startNs).toFixed(1)} ms`;
    return [
      i % 2 === 0 ? `<rect x="0" y="${y}" width="${layout.width}" height="${layout.rowHeight}" class="band"/>` : '',
      `<text x="${layout.padding}" y="${y + 16}" class="service" fill="${colour(span.service)}">${escaped(span.service)}</text>`,
      `<text x="${layout.padding + 110 + depth * 14}" y="${y + 16}" class="name">${escaped(label)}</text>`,
      `<rect x="${left.toFixed(1)}" y="${y + 5}" width="${width.toFixed(1)}" height="${layout.rowHeight - 10}" rx="2" fill="${colour(span.service)}"${span.failed ? ' class="failed"' : ''}/>`,
      `<text x="${(left + width + 6).toFixed(1)}" y="${y + 16}" class="duration">${duration}</text>`,
    ].join('');
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${height}" viewBox="0 0 ${layout.width} ${height}" font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" font-size="12">`,
    '<style>.band{fill:#f4f6f8}.grid{stroke:#d0d7de;stroke-width:1}.tick{fill:#57606a;font-size:10px;text-anchor:middle}.service{font-weight:600}.name{fill:#24292f}.duration{fill:#57606a;font-size:11px}.legend{fill:#24292f}.title{font-size:14px;font-weight:600;fill:#24292f}.failed{stroke:#cf222e;stroke-width:2}</style>',
    `<rect x="0" y="0" width="${layout.width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${layout.padding}" y="20" class="title">${escaped(title)}</text>`,
    ...legend,
    ...ticks,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

/** The received spans of `traceId` as rows, with the note the terminal tree gives each. */
export function waterfallSpansOf(spans: readonly ReceivedSpan[], traceId: string, detailOf: (span: ReceivedSpan) => string): WaterfallSpan[] {
  return spans
    .filter((span) => span.traceId === traceId)
    .map((span) => ({
      service: span.service,
      spanId: span.spanId,
      parentSpanId: span.parentSpanId,
      name: span.name,
      startNs: span.startNs,
      endNs: span.endNs,
      detail: detailOf(span),
      failed: span.statusCode === 2,
    }));
}
