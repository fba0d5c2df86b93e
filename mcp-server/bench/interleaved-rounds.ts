// How the gateway bench shares a noisy, shared 2-CPU machine fairly between the sides it compares.
// Sequential calls go in small blocks, side after side, round after round, so that every side's
// p50 is taken over the same stretch of time and a slow patch of the machine falls on all alike;
// three long turns each used to leave the ratio to whatever the machine did meanwhile (the
// gateway's p50 read anywhere from 0.74x to 1.15x of the proxy's, run to run). Calls under load go
// in short turns per side, in alternating order; a calls/s target is the median of the per-round
// ratios, which one or two noisy rounds cannot move.
import type { Client } from '@modelcontextprotocol/client';
import { collectGarbage } from '@platform/devtools/bench-report';
import { callLoad, quantile, sequentialCalls, type BenchTool, type LoadFigures } from './tool-call-load.ts';

/** What one side measured. */
export interface Turns {
  /** Each block of sequential calls: the round it was taken in, and its latencies in ms. */
  readonly blocks: { readonly round: number; readonly latenciesMs: readonly number[] }[];
  /** One entry per round under load. */
  readonly load: LoadFigures[];
  /** The servers' CPU time per call under load, per round. */
  readonly cpuMicrosPerCall: number[];
}

export interface Side {
  readonly name: string;
  readonly clients: readonly Client[];
  /** Only sequential calls (a side that only takes the p50 apart). */
  readonly sequentialOnly?: boolean;
  /** The tool its sequential calls make; the no-op by default. */
  readonly tool?: BenchTool;
  readonly turns: Turns;
}

export const newTurns = (): Turns => ({ blocks: [], load: [], cpuMicrosPerCall: [] });

export const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** The value at quantile `q` of the side's sequential latencies (of the rounds `from` to `to`), in ms. */
export function latencyQuantile(turns: Turns, q: number, from = 0, to = Number.POSITIVE_INFINITY): number {
  const taken = turns.blocks.filter((block) => block.round >= from && block.round < to).flatMap((block) => block.latenciesMs);
  return quantile(Float64Array.from(taken).sort(), q);
}

/** Every sequential call the side made. */
export const sequentialCount = (turns: Turns): number => turns.blocks.reduce((sum, block) => sum + block.latenciesMs.length, 0);

/** The ratio of two sides' p50, and its lowest and highest over the run's quarters (how steady it was). */
export function p50Ratio(a: Turns, b: Turns): { readonly ratio: number; readonly low: number; readonly high: number } {
  const rounds = Math.max(0, ...a.blocks.map((block) => block.round)) + 1;
  const quarters = [0, 1, 2, 3].map((quarter) => {
    const [from, to] = [Math.floor((quarter * rounds) / 4), Math.floor(((quarter + 1) * rounds) / 4)];
    return latencyQuantile(a, 0.5, from, to) / latencyQuantile(b, 0.5, from, to);
  });
  return { ratio: latencyQuantile(a, 0.5) / latencyQuantile(b, 0.5), low: Math.min(...quarters), high: Math.max(...quarters) };
}

/**
 * The median over rounds of `a[i] / b[i]`, with the lowest and highest. A round in which either
 * side answered nothing counted (the machine starved it) has no ratio and is left out.
 */
export function roundRatio(a: readonly number[], b: readonly number[]): { readonly ratio: number; readonly low: number; readonly high: number } {
  const ratios = a.map((value, round) => value / (b[round] ?? Number.NaN)).filter((ratio) => Number.isFinite(ratio) && ratio > 0);
  return { ratio: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
}

export interface SequentialOptions {
  /** Time given to all sides together. */
  readonly seconds: number;
  /** Calls per side in one round. */
  readonly blockCalls: number;
  /** Called before each block: the tracing bench switches tracing on or off for the side here. */
  beforeBlock?(side: Side): Promise<void>;
}

/** Rounds of `blockCalls` sequential calls per side, the order reversed every other round, until the time is up. */
export async function measureSequential(sides: readonly Side[], options: SequentialOptions): Promise<void> {
  const end = performance.now() + options.seconds * 1000;
  for (let round = 0; performance.now() < end; round++) {
    for (const side of round % 2 === 0 ? sides : sides.toReversed()) {
      const [first] = side.clients;
      if (!first) throw new Error(`${side.name}: no client`);
      await options.beforeBlock?.(side);
      side.turns.blocks.push({ round, latenciesMs: await sequentialCalls(first, options.blockCalls, side.tool) });
    }
  }
}

export interface LoadOptions {
  readonly rounds: number;
  readonly seconds: number;
  /** The start of each turn, not counted in calls/s: the workers begin together. */
  readonly rampSeconds: number;
  readonly inFlightPerClient: number;
  /** The servers' CPU time so far in µs, after a garbage collection there when `gc`. */
  cpuMicros(gc: boolean): Promise<number>;
  /** Called before each turn: the tracing bench switches tracing on or off for the side here. */
  beforeTurn?(side: Side): Promise<void>;
}

/** A turn under load per side in each round, the order reversed every other round. */
export async function measureLoad(sides: readonly Side[], options: LoadOptions): Promise<void> {
  const loaded = sides.filter((side) => side.sequentialOnly !== true);
  for (let round = 0; round < options.rounds; round++) {
    for (const side of round % 2 === 0 ? loaded : loaded.toReversed()) {
      await options.beforeTurn?.(side);
      // Each turn starts clean: one side's garbage is not collected in another's turn.
      collectGarbage();
      const before = await options.cpuMicros(true);
      const load = await callLoad(side.clients, options.inFlightPerClient, options.seconds, options.rampSeconds);
      side.turns.load.push(load);
      side.turns.cpuMicrosPerCall.push(((await options.cpuMicros(false)) - before) / load.calls);
    }
  }
}
