// Closed-loop tools/call load over MCP SDK clients: each of `inFlight` workers per client issues its
// next call as soon as the previous one answers. One client with one worker gives the sequential
// latency; several of each give calls/s under concurrency. Every answer must be the no-op's.
import type { CallToolResult, Client } from '@modelcontextprotocol/client';

export interface LoadFigures {
  readonly calls: number;
  readonly callsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
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

export async function callLoad(clients: readonly Client[], inFlight: number, seconds: number): Promise<LoadFigures> {
  const latencies: number[] = [];
  const started = performance.now();
  const end = started + seconds * 1000;
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
      latencies.push(performance.now() - before);
    }
  };
  await Promise.all(clients.flatMap((client) => Array.from({ length: inFlight }, () => worker(client))));
  if (failure !== undefined) throw failure.error;
  const elapsedSeconds = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return { calls: latencies.length, callsPerSecond: latencies.length / elapsedSeconds, p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99) };
}
