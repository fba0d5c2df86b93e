// Closed-loop tools/call load over MCP SDK clients: each of `inFlight` workers per client issues its
// next call as soon as the previous one answers. One client with one worker gives the sequential
// latency; several of each give calls/s under concurrency. Every answer must be the no-op's.
import type { CallToolResult, Client } from '@modelcontextprotocol/client';

export interface LoadFigures {
  /** Every call answered, those of the ramp and of the drain after the end included. */
  readonly calls: number;
  /** Calls answered per second between the end of the ramp and the end (no worker is idle then). */
  readonly callsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Every call's latency, ascending. */
  readonly latenciesMs: Float64Array;
}

/** The value at quantile `q` of ascending `sorted` (nearest rank). */
export function quantile(sorted: Float64Array, q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

function checkNoop(result: CallToolResult): void {
  const structured = result.structuredContent as { ok?: unknown } | undefined;
  if (result.isError === true || structured?.ok !== true) {
    throw new Error(`tools/call answered something else than the no-op's result: ${JSON.stringify(result).slice(0, 500)}`);
  }
}

/**
 * `seconds` of calls; the rate counts the answers after `rampSeconds` and before the end, so that
 * neither the workers' start together nor the calls still running at the end (one latency each)
 * weigh on a short run.
 */
export async function callLoad(clients: readonly Client[], inFlight: number, seconds: number, rampSeconds = 0): Promise<LoadFigures> {
  const latencies: number[] = [];
  const started = performance.now();
  const steady = started + rampSeconds * 1000;
  const end = started + seconds * 1000;
  let steadyAnswers = 0;
  // Boxed, so that a thrown undefined still counts as a failure.
  let failure: { readonly error: unknown } | undefined;
  const worker = async (client: Client) => {
    while (failure === undefined && performance.now() < end) {
      const before = performance.now();
      try {
        checkNoop(await client.callTool({ name: 'noop', arguments: {} }));
      } catch (error) {
        failure ??= { error };
        return;
      }
      const answered = performance.now();
      latencies.push(answered - before);
      if (answered >= steady && answered < end) steadyAnswers += 1;
    }
  };
  await Promise.all(clients.flatMap((client) => Array.from({ length: inFlight }, () => worker(client))));
  if (failure !== undefined) throw failure.error;
  const sorted = Float64Array.from(latencies).sort();
  return {
    calls: latencies.length,
    callsPerSecond: steadyAnswers / (seconds - rampSeconds),
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    latenciesMs: sorted,
  };
}

/** The tool a side calls: the no-op by default; `progress10` with a progress token, its ten reports counted. */
export type BenchTool = 'noop' | 'progress10';

async function callOnce(client: Client, tool: BenchTool): Promise<void> {
  if (tool === 'noop') {
    checkNoop(await client.callTool({ name: 'noop', arguments: {} }));
    return;
  }
  let reports = 0;
  checkNoop(await client.callTool({ name: tool, arguments: {} }, { onprogress: () => (reports += 1) }));
  if (reports !== 10) throw new Error(`progress10 reported ${reports} times instead of 10`);
}

/** `calls` sequential calls of `tool` from `client`, their latencies in ms in the order made. */
export async function sequentialCalls(client: Client, calls: number, tool: BenchTool = 'noop'): Promise<number[]> {
  const latencies: number[] = [];
  for (let call = 0; call < calls; call++) {
    const before = performance.now();
    await callOnce(client, tool);
    latencies.push(performance.now() - before);
  }
  return latencies;
}
