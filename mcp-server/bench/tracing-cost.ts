// What tracing costs the gateway path: the same warm tools/call measured with tracing off and with
// every span sampled (exported to a no-op), in interleaved rounds of one run, p50 and calls/s.
// The target: tracing on adds at most 10 % to the p50.
import type { Client } from '@modelcontextprotocol/client';
import { printTarget } from '@platform/devtools/bench-targets';
import type { TracingFigures } from './tracing-switch.ts';
import { callLoad, type LoadFigures } from './tool-call-load.ts';

export interface TracingCostOptions {
  readonly clients: readonly Client[];
  readonly rounds: number;
  readonly inFlightPerClient: number;
  readonly sequentialSeconds: number;
  readonly loadSeconds: number;
  setTracing(on: boolean): Promise<TracingFigures>;
  /** The servers process's CPU time so far, in µs. */
  cpuMicros(): Promise<number>;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** Measures and prints; whether the target was met. */
export async function reportTracingCost(options: TracingCostOptions): Promise<boolean> {
  const { clients, rounds, inFlightPerClient } = options;
  const [first] = clients;
  if (!first) throw new Error('no client');
  const figures = {
    off: { sequential: [] as LoadFigures[], load: [] as LoadFigures[], cpu: [] as number[] },
    on: { sequential: [] as LoadFigures[], load: [] as LoadFigures[], cpu: [] as number[] },
  };
  const spansBefore = (await options.setTracing(false)).spans;
  let callsTraced = 0;
  for (let round = 0; round < rounds; round++) {
    for (const mode of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      await options.setTracing(mode === 'on');
      await callLoad(clients, inFlightPerClient, 0.3); // warm the switched path
      const sequential = await callLoad([first], 1, options.sequentialSeconds);
      const cpuBefore = await options.cpuMicros();
      const load = await callLoad(clients, inFlightPerClient, options.loadSeconds);
      figures[mode].cpu.push(((await options.cpuMicros()) - cpuBefore) / load.calls);
      figures[mode].sequential.push(sequential);
      figures[mode].load.push(load);
      if (mode === 'on') callsTraced += sequential.calls + load.calls;
    }
  }
  const spans = (await options.setTracing(false)).spans - spansBefore;
  const p50 = { off: median(figures.off.sequential.map((r) => r.p50Ms)), on: median(figures.on.sequential.map((r) => r.p50Ms)) };
  const rate = { off: median(figures.off.load.map((r) => r.callsPerSecond)), on: median(figures.on.load.map((r) => r.callsPerSecond)) };
  console.log(`\nThe cost of tracing (2026-07-28, the gateway path of both processes' spans, every span sampled, a no-op exporter behind the batch):`);
  console.log(`  p50 latency, sequential: ${p50.off.toFixed(3)} ms off, ${p50.on.toFixed(3)} ms on`);
  console.log(
    `  calls/s, ${inFlightPerClient * clients.length} in flight: ${rate.off.toFixed(0)} off, ${rate.on.toFixed(0)} on (${(rate.on / rate.off).toFixed(3)}x)`,
  );
  const cpu = { off: median(figures.off.cpu), on: median(figures.on.cpu) };
  console.log(
    `  servers' CPU time per call under load: ${cpu.off.toFixed(0)} µs off, ${cpu.on.toFixed(0)} µs on (${cpu.on >= cpu.off ? '+' : ''}${(cpu.on - cpu.off).toFixed(0)} µs)`,
  );
  console.log(`  about ${(spans / Math.max(1, callsTraced)).toFixed(1)} spans exported per traced call (${spans} in all)`);
  return printTarget({ name: 'gateway p50 with tracing on', figure: p50.on / p50.off, unit: 'x', of: 'tracing off', atMost: 1.1, digits: 3 });
}
