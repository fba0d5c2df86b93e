// What tracing costs the gateway path: the same warm tools/call with tracing off and with every
// span sampled (exported to a no-op), as two sides taking turns in the same run (blocks of
// sequential calls, then turns under load): p50, calls/s and the servers' CPU time per call. The
// target: tracing on adds at most 10 % to the p50. When it is missed, a CPU profile of the servers
// in each mode shows where the added time goes.
import type { Client } from '@modelcontextprotocol/client';
import { printTarget } from '@platform/devtools/bench-targets';
import { latencyQuantile, measureLoad, measureSequential, median, newTurns, p50Ratio, roundRatio, sequentialCount, type Side } from './interleaved-rounds.ts';
import { printProfileDifference, profiledTurn } from './profile-report.ts';
import type { TracingFigures } from './tracing-switch.ts';

export interface TracingCostOptions {
  readonly clients: readonly Client[];
  readonly inFlightPerClient: number;
  readonly sequential: { readonly seconds: number; readonly blockCalls: number };
  readonly load: { readonly rounds: number; readonly seconds: number; readonly rampSeconds: number };
  /** Each mode's profiled turn when the target is missed. */
  readonly profileSeconds: number;
  readonly setTracing: (on: boolean) => Promise<TracingFigures>;
  /** The servers process's CPU time so far in µs, after a garbage collection there when `gc`. */
  readonly cpuMicros: (gc: boolean) => Promise<number>;
  /** Starts a CPU profile of the servers, or stops it and answers its summary. */
  readonly profile: (start: boolean) => Promise<unknown>;
}

const maxRatio = 1.1;

/** Measures and prints; whether the target was met. */
export async function reportTracingCost(options: TracingCostOptions): Promise<boolean> {
  const { clients, inFlightPerClient } = options;
  const [first] = clients;
  if (!first) throw new Error('no client');
  const off: Side = { name: 'off', clients, turns: newTurns() };
  const on: Side = { name: 'on', clients, turns: newTurns() };
  const switchTo = async (side: Side) => {
    await options.setTracing(side === on);
    // The first calls after a switch pay for it (a provider made, or shut down): not counted.
    await first.callTool({ name: 'noop', arguments: {} });
  };
  const spansBefore = (await options.setTracing(false)).spans;
  let tracedCalls = 0;
  await measureSequential([off, on], { ...options.sequential, beforeBlock: switchTo });
  // Switching off flushes what the last traced block batched: the spans of the sequential calls.
  const spans = (await options.setTracing(false)).spans - spansBefore;
  tracedCalls += sequentialCount(on.turns) + on.turns.blocks.length;
  await measureLoad([off, on], { ...options.load, inFlightPerClient, cpuMicros: options.cpuMicros, beforeTurn: switchTo });
  await options.setTracing(false);

  const rates = { off: off.turns.load.map((t) => t.callsPerSecond), on: on.turns.load.map((t) => t.callsPerSecond) };
  const cpu = { off: median(off.turns.cpuMicrosPerCall), on: median(on.turns.cpuMicrosPerCall) };
  const latency = p50Ratio(on.turns, off.turns);
  const throughput = roundRatio(rates.on, rates.off);
  console.log(`\nThe cost of tracing (2026-07-28, the gateway path of both processes' spans, every span sampled, a no-op exporter behind the batch):`);
  console.log(`  p50 latency, sequential: ${latencyQuantile(off.turns, 0.5).toFixed(3)} ms off, ${latencyQuantile(on.turns, 0.5).toFixed(3)} ms on`);
  console.log(
    `  calls/s, ${inFlightPerClient * clients.length} in flight: ${median(rates.off).toFixed(0)} off, ${median(rates.on).toFixed(0)} on` +
      ` (${throughput.ratio.toFixed(3)}x, median of per-round ratios, ${throughput.low.toFixed(2)}-${throughput.high.toFixed(2)}x)`,
  );
  console.log(
    `  servers' CPU time per call under load: ${cpu.off.toFixed(0)} µs off, ${cpu.on.toFixed(0)} µs on (${cpu.on >= cpu.off ? '+' : ''}${(cpu.on - cpu.off).toFixed(0)} µs)`,
  );
  console.log(`  ${(spans / Math.max(1, tracedCalls)).toFixed(1)} spans exported per traced call (${spans} in all)`);
  const met = printTarget({
    name: 'gateway p50 with tracing on',
    figure: latency.ratio,
    unit: 'x',
    of: `tracing off (${latency.low.toFixed(2)}-${latency.high.toFixed(2)}x by quarter of the run)`,
    atMost: maxRatio,
    digits: 3,
  });
  if (!met) {
    await options.setTracing(true);
    const traced = await profiledTurn([first], 1, options.profileSeconds, options.profile);
    await options.setTracing(false);
    const untraced = await profiledTurn([first], 1, options.profileSeconds, options.profile);
    printProfileDifference("the servers' CPU in a sequential turn, tracing on against off", traced, untraced);
  }
  return met;
}
