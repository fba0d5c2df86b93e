// A sampling CPU profile of the process it runs in, summed by place: the package a function comes
// from (@grpc/grpc-js, @opentelemetry/sdk-trace), this repository's file, Node's internals, the
// garbage collector. The gateway bench takes one of the servers process for the sides it compares
// when a target is missed, and prints where the difference goes.
import { Session } from 'node:inspector/promises';

/** Self time in µs by place, over the profile. */
export type ProfileSummary = Readonly<Record<string, number>>;

function placeOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (inPackage?.[1] !== undefined) return inPackage[1];
  if (url.startsWith('node:')) return 'node: internals';
  const own = /\/((?:shared|mcp-server|dev-platform|proto)\/(?:src|bench)\/.+)$/.exec(url);
  return own?.[1] ?? url;
}

/** Starts profiling this process; the function it returns stops it and sums the samples by place. */
export async function startCpuProfile(): Promise<() => Promise<ProfileSummary>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    const places = new Map(profile.nodes.map((node) => [node.id, placeOf(node.callFrame.url, node.callFrame.functionName)]));
    const summary: Record<string, number> = {};
    const deltas = profile.timeDeltas ?? [];
    for (const [index, id] of (profile.samples ?? []).entries()) {
      const place = places.get(id) ?? '(unknown)';
      if (place === '(idle)') continue;
      summary[place] = (summary[place] ?? 0) + (deltas[index + 1] ?? 0);
    }
    return summary;
  };
}

/** The places where `measured` spent the most more than `baseline` per call, each in µs per call. */
export function addedPerCall(measured: ProfileSummary, measuredCalls: number, baseline: ProfileSummary, baselineCalls: number, top: number) {
  const places = new Set([...Object.keys(measured), ...Object.keys(baseline)]);
  const rows = [...places].map((place) => ({
    place,
    measured: (measured[place] ?? 0) / measuredCalls,
    baseline: (baseline[place] ?? 0) / baselineCalls,
  }));
  const total = (which: 'measured' | 'baseline') => rows.reduce((sum, row) => sum + row[which], 0);
  return {
    measured: total('measured'),
    baseline: total('baseline'),
    top: rows.sort((a, b) => b.measured - b.baseline - (a.measured - a.baseline)).slice(0, top),
  };
}
