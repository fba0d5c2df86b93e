// Prints a benchmark figure next to its baseline from the same run, as a ratio, so the number
// means something on a noisy machine.
import autocannon from 'autocannon';
import { Bench } from 'tinybench';

/** A line of the report on standard output: a bench's figures are its output, not a service's log. */
const print = (line: string) => process.stdout.write(`${line}\n`);

export interface Figure {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
}

export function printComparison(title: string, measured: Figure, baseline: Figure): void {
  const ratio = measured.value / baseline.value;
  print(`\n${title}`);
  print(`  ${measured.name.padEnd(48)} ${format(measured.value).padStart(12)} ${measured.unit}`);
  print(`  ${baseline.name.padEnd(48)} ${format(baseline.value).padStart(12)} ${baseline.unit}  (baseline, same run)`);
  print(`  ratio ${format(ratio)}x`);
}

export interface Latencies {
  readonly name: string;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** The p50 and p99 latency of each target, one line each. */
export function printLatencies(title: string, ...targets: readonly Latencies[]): void {
  print(`\n${title}`);
  for (const { name, p50Ms, p99Ms } of targets) print(`  ${name.padEnd(48)} p50 ${p50Ms.toFixed(2).padStart(8)} ms   p99 ${p99Ms.toFixed(2).padStart(8)} ms`);
}

function format(value: number): string {
  return value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(2);
}

/**
 * Mean nanoseconds per operation of each task. Every task body runs `batch` operations per
 * sample, so timer resolution does not swamp a lookup of a few nanoseconds.
 */
export async function nanosecondsPerOperation(
  tasks: Record<string, () => unknown>,
  batch: number,
  options: { timeMs?: number } = {},
): Promise<Record<string, number>> {
  const bench = new Bench({ time: options.timeMs ?? 1_500, warmupTime: 300 });
  for (const [name, fn] of Object.entries(tasks)) bench.add(name, fn);
  await bench.run();
  const figures: Record<string, number> = {};
  for (const task of bench.tasks) {
    const result = task.result;
    if (result.state !== 'completed') throw new Error(`benchmark ${task.name} did not complete (${result.state})`);
    figures[task.name] = (result.latency.mean * 1e6) / batch;
  }
  return figures;
}

export function collectGarbage(): void {
  if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc (npm run bench does)');
  globalThis.gc();
  globalThis.gc();
}

/**
 * Requests/s of several HTTP targets under autocannon load, measured in interleaved rounds (each
 * target once per round, after a warm-up) and reported as the median per target: these machines'
 * speed drifts within a run, and interleaving makes a slow patch fall on every target alike, so
 * ratios hold. Fails on any non-2xx answer, error or timeout: a figure is never the speed of failing.
 */
export async function requestsPerSecond<Name extends string>(
  targets: Record<Name, autocannon.Options>,
  load: { connections: number; secondsPerRound: number; rounds: number },
): Promise<Record<Name, number>> {
  const names = Object.keys(targets) as Name[];
  const samples = new Map<Name, number[]>(names.map((name) => [name, []]));
  const measure = async (name: Name, duration: number) => {
    const result = await autocannon({ ...targets[name], connections: load.connections, duration });
    const failed = result.non2xx + result.errors + result.timeouts;
    if (failed > 0 || result.requests.total === 0) throw new Error(`${name}: ${failed} failed requests of ${result.requests.total}`);
    return result.requests.average;
  };
  for (const name of names) await measure(name, 1);
  for (let round = 0; round < load.rounds; round++) {
    for (const name of names) samples.get(name)?.push(await measure(name, load.secondsPerRound));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  return Object.fromEntries(names.map((name) => [name, median(samples.get(name) ?? [])])) as Record<Name, number>;
}
