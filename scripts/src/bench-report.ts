// Prints a benchmark figure next to its baseline from the same run, as a ratio, so the number
// means something on a noisy machine.
import { Bench } from 'tinybench';

export interface Figure {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
}

export function printComparison(title: string, measured: Figure, baseline: Figure): void {
  const ratio = measured.value / baseline.value;
  console.log(`\n${title}`);
  console.log(`  ${measured.name.padEnd(48)} ${format(measured.value).padStart(12)} ${measured.unit}`);
  console.log(`  ${baseline.name.padEnd(48)} ${format(baseline.value).padStart(12)} ${baseline.unit}  (baseline, same run)`);
  console.log(`  ratio ${format(ratio)}x`);
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
