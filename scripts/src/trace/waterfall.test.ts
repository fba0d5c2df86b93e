import { describe, expect, it } from 'vitest';
import { traceWaterfallSvg, type WaterfallSpan } from './waterfall.ts';

const ms = (n: number) => BigInt(Math.round(n * 1e6)) + 1_800_000_000_000_000_000n;
const span = (spanId: string, parentSpanId: string, service: string, name: string, from: number, to: number, extra: Partial<WaterfallSpan> = {}) => ({
  spanId,
  parentSpanId,
  service,
  name,
  startNs: ms(from),
  endNs: ms(to),
  ...extra,
});

const trace = [
  span('c', 'a', 'webhook-tools', 'platform.tools.v1.ToolService/CallTool', 4, 9),
  span('a', 'client', 'mcp-server', 'POST /mcp', 0, 10, { detail: '200' }),
  span('b', 'a', 'mcp-server', 'caller check', 0.5, 1, { detail: 'cache hit' }),
  span('d', 'c', 'webhook-tools', 'execute_tool list_webhooks', 5, 8, { failed: true }),
];

/** The text of each element of `kind` in document order. */
const texts = (svg: string, className: string) => [...svg.matchAll(new RegExp(`class="${className}"[^>]*>([^<]*)<`, 'g'))].map((m) => m[1]);

describe('the trace waterfall picture', () => {
  it('draws a row per span in tree order, children under their parent by start, each with its duration', () => {
    const svg = traceWaterfallSvg(trace, 'One call');
    expect(texts(svg, 'name')).toEqual([
      'POST /mcp  (200)',
      'caller check  (cache hit)',
      'platform.tools.v1.ToolService/CallTool',
      'execute_tool list_webhooks',
    ]);
    expect(texts(svg, 'duration')).toEqual(['10.0 ms', '0.5 ms', '5.0 ms', '3.0 ms']);
    expect(texts(svg, 'legend')).toEqual(['mcp-server', 'webhook-tools']);
  });

  it('places each bar on the shared time axis: the root spans its whole width, a child starts where it started', () => {
    const svg = traceWaterfallSvg(trace, 'One call');
    const bars = [...svg.matchAll(/<rect x="([\d.]+)" y="\d+" width="([\d.]+)" height="14"/g)].map((m) => ({ x: Number(m[1]), width: Number(m[2]) }));
    const [root, check, call] = bars;
    if (!root || !check || !call) throw new Error(`three bars expected, found ${bars.length}`);
    expect(check.x - root.x).toBeCloseTo(root.width * 0.05, 0);
    expect(call.x - root.x).toBeCloseTo(root.width * 0.4, 0);
    expect(call.width).toBeCloseTo(root.width * 0.5, 0);
  });

  it('marks a failed span', () => {
    expect(traceWaterfallSvg(trace, 'One call').match(/class="failed"/g)).toHaveLength(1);
  });

  it('escapes what the spans say: a hostile span or service name is text, not markup', () => {
    const hostile = [span('a', '', '<script>alert(1)</script>', 'GET /x?a=1&b="2" </svg><svg onload=alert(1)>\u0000\u001b[31m', 0, 1)];
    const svg = traceWaterfallSvg(hostile, "title's <b>");
    expect(svg).not.toContain('<script');
    expect(svg).not.toContain('onload=alert(1)>');
    for (const c of svg) expect(c.charCodeAt(0) >= 0x20 || c === '\n', `control character ${c.charCodeAt(0)}`).toBe(true);
    expect(svg).toContain('&lt;/svg&gt;&lt;svg onload=alert(1)&gt;');
    expect(svg).toContain('title&apos;s &lt;b&gt;');
    expect(svg.match(/<svg /g)).toHaveLength(1);
    expect(svg.match(/<text /g)?.length).toBe(svg.match(/<\/text>/g)?.length);
  });

  it('refuses a trace with no span', () => {
    expect(() => traceWaterfallSvg([], 'nothing')).toThrow('no span to draw');
  });
});
