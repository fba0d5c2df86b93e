// The gateway bench's report of one protocol revision: the table of the gateway, the minimal
// proxy and the bare server, what the gateway's extra goes to, its targets (with the servers'
// profile when one is missed) and the TLS gateway against the plaintext one.
import { printTarget } from '@platform/devtools/bench-targets';
import type { GrpcFloorFigures, GrpcLegFigures } from './bench-servers.ts';
import { latencyQuantile, median, p50Ratio, roundRatio, type Turns } from './interleaved-rounds.ts';
import { printProfileDifference, type ProfiledTurn } from './profile-report.ts';

export type Era = 'legacy' | 'modern';
const eraTitles: Record<Era, string> = { legacy: '2025-11-25, sessions', modern: '2026-07-28, stateless' };

/** Against the minimal MCP-to-gRPC proxy: p50 at most, calls/s at least. */
export const targets = { p50: 1.15, callsPerSecond: 0.85 } as const;

export interface EraResult {
  readonly era: Era;
  readonly gateway: Turns;
  readonly minimalProxy: Turns;
  readonly bare: Turns;
  /** The gateway with CallTool answered in-process: sequential only. */
  readonly hopless: Turns;
  /** The gateway with gRPC over mutual TLS. */
  readonly tls: Turns;
  /** The gateway calling a tool that reports progress ten times (with a progress token): sequential only. */
  readonly progress: Turns;
  readonly platform: Record<string, number>;
  /** Profiles of a sequential turn of the gateway and the proxy, when the p50 target was missed. */
  readonly sequentialProfiles?: { readonly gateway: ProfiledTurn; readonly proxy: ProfiledTurn };
  /** Profiles of a turn under load of each, when the calls/s target was missed. */
  readonly loadProfiles?: { readonly gateway: ProfiledTurn; readonly proxy: ProfiledTurn };
}

export const rates = (turns: Turns) => turns.load.map((turn) => turn.callsPerSecond);

interface Figures {
  readonly p50: number;
  readonly p99: number;
  readonly callsPerSecond: number;
  readonly loadP50: number;
  readonly loadP99: number;
  readonly cpu: number;
}

/** Each side's figures: p50 and p99 of all its sequential calls, the medians of its turns under load. */
const figuresOf = (turns: Turns): Figures => ({
  p50: latencyQuantile(turns, 0.5),
  p99: latencyQuantile(turns, 0.99),
  callsPerSecond: median(rates(turns)),
  loadP50: median(turns.load.map((r) => r.p50Ms)),
  loadP99: median(turns.load.map((r) => r.p99Ms)),
  cpu: median(turns.cpuMicrosPerCall),
});

/** How steady a ratio was: its lowest and highest over the parts it was taken in. */
const spread = ({ low, high }: { readonly low: number; readonly high: number }, over: string) => `${low.toFixed(2)}-${high.toFixed(2)}x ${over}`;

/** One metric: the gateway, the minimal proxy and the bare server, and the gateway's ratio to each. */
function row(metric: string, gateway: number, proxy: number, bare: number, digits: number): string {
  // Three decimals, so that a ratio just short of its target never reads as on it.
  const cells = [
    metric.padEnd(44),
    gateway.toFixed(digits).padStart(9),
    proxy.toFixed(digits).padStart(9),
    bare.toFixed(digits).padStart(9),
    `${(gateway / proxy).toFixed(3)}x`.padStart(8),
    `${(gateway / bare).toFixed(3)}x`.padStart(8),
  ];
  return `  ${cells.join(' ')}`;
}

/** How the turns were taken, for the lines that name them. */
export interface ReportContext {
  readonly clients: number;
  readonly inFlightPerClient: number;
  readonly loadRounds: number;
  readonly grpcLeg: GrpcLegFigures;
  readonly grpcFloor: GrpcFloorFigures;
}

export function printEra(result: EraResult, { clients, inFlightPerClient, loadRounds, grpcLeg, grpcFloor }: ReportContext): void {
  const { era, platform } = result;
  const g = figuresOf(result.gateway);
  const p = figuresOf(result.minimalProxy);
  const b = figuresOf(result.bare);
  const hoplessP50 = latencyQuantile(result.hopless, 0.5);
  console.log(`\nMCP tools/call of a no-op tool, warm, ${eraTitles[era]}`);
  console.log(`  ${'metric'.padEnd(44)} ${'gateway'.padStart(9)} ${'proxy'.padStart(9)} ${'bare'.padStart(9)} ${'÷proxy'.padStart(8)} ${'÷bare'.padStart(8)}`);
  console.log(row('p50 latency, sequential (ms)', g.p50, p.p50, b.p50, 3));
  console.log(row('p99 latency, sequential (ms)', g.p99, p.p99, b.p99, 3));
  console.log(row('p50, gateway without its gRPC hop (ms)', hoplessP50, p.p50, b.p50, 3));
  const progressP50 = latencyQuantile(result.progress, 0.5);
  console.log(row('p50, a tool streaming 10 progress events (ms)', progressP50, p.p50, b.p50, 3));
  console.log(
    `  the ten progress events cost ${((progressP50 - g.p50) * 1000).toFixed(0)} µs over the gateway's no-op (${p50Ratio(result.progress, result.gateway).ratio.toFixed(3)}x its p50)`,
  );
  console.log(row(`calls/s, ${inFlightPerClient * clients} in flight over ${clients} clients`, g.callsPerSecond, p.callsPerSecond, b.callsPerSecond, 0));
  console.log(row('p50 latency at that load (ms)', g.loadP50, p.loadP50, b.loadP50, 3));
  console.log(row('p99 latency at that load (ms)', g.loadP99, p.loadP99, b.loadP99, 3));
  console.log(row('servers CPU time per call under load (µs)', g.cpu, p.cpu, b.cpu, 0));
  const extra = g.cpu - p.cpu;
  console.log(
    `  the gateway's extra ${extra.toFixed(0)} µs of CPU per call over the proxy (caller check, delegated token, registry, SDK context, result checks);` +
      ` the SDK's gRPC leg alone takes ${grpcLeg.cpuMicrosPerCall.toFixed(0)} µs`,
  );
  const budget = (targets.p50 - 1) * p.p50 * 1000;
  const hop = (g.p50 - hoplessP50) * 1000;
  const proxyHop = (p.p50 - b.p50) * 1000;
  console.log(
    `  the p50 target leaves ${budget.toFixed(0)} µs over the proxy; the gateway's hop costs ${hop.toFixed(0)} µs in place, the proxy's ${proxyHop.toFixed(0)} µs` +
      ` (a bare grpc-js call alone, hot, ${grpcFloor.p50Micros.toFixed(0)} µs)`,
  );
  const date = era === 'legacy' ? '2025-11-25' : '2026-07-28';
  const latency = p50Ratio(result.gateway, result.minimalProxy);
  printTarget({
    name: `Gateway p50, ${date},`,
    figure: latency.ratio,
    unit: 'x',
    of: `the minimal proxy (${spread(latency, 'by quarter of the run')})`,
    atMost: targets.p50,
    digits: 3,
  });
  const throughput = roundRatio(rates(result.gateway), rates(result.minimalProxy));
  printTarget({
    name: `Gateway calls/s, ${date},`,
    figure: throughput.ratio,
    unit: 'x',
    of: `the minimal proxy, median of per-round ratios (${spread(throughput, `over ${loadRounds} rounds`)})`,
    atLeast: targets.callsPerSecond,
    digits: 3,
  });
  const { sequentialProfiles: sequential, loadProfiles: loaded } = result;
  if (sequential) printProfileDifference("the servers' CPU in a sequential turn, gateway against proxy", sequential.gateway, sequential.proxy);
  if (loaded) printProfileDifference("the servers' CPU in a turn under load, gateway against proxy", loaded.gateway, loaded.proxy);
  const versus = (metric: string, withTls: number, plain: number, ratio: number, digits: number) =>
    `  ${metric.padEnd(44)} ${withTls.toFixed(digits).padStart(9)} ${plain.toFixed(digits).padStart(9)} ${`${ratio.toFixed(3)}x`.padStart(8)}`;
  const t = figuresOf(result.tls);
  console.log(`  ${'gRPC over mutual TLS (npm start) vs plaintext'.padEnd(44)} ${'TLS'.padStart(9)} ${'plain'.padStart(9)} ${'ratio'.padStart(8)}`);
  console.log(versus('p50 latency, sequential (ms)', t.p50, g.p50, p50Ratio(result.tls, result.gateway).ratio, 3));
  console.log(
    versus(
      `calls/s, ${inFlightPerClient * clients} in flight over ${clients} clients`,
      t.callsPerSecond,
      g.callsPerSecond,
      roundRatio(rates(result.tls), rates(result.gateway)).ratio,
      0,
    ),
  );
  const asked = Object.entries(platform).map(([key, count]) => `${key} ×${count}`);
  console.log(`  platform asked during the measured rounds: ${asked.length === 0 ? 'nothing' : asked.join(', ')}`);
}
