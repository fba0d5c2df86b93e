// A sampling CPU profile of the process it runs in, summed by place: the package a function comes
// from (@grpc/grpc-js, @opentelemetry/sdk-trace), this repository's file, Node's internals, the
// garbage collector. The gateway bench takes one of the servers process for the sides it compares
// when a target is missed, and prints where the difference goes.
import { startCpuProfile as startProfile } from '@platform/devtools/cpu-profile';

/** Self time in µs by place, over the profile. */
export type ProfileSummary = Readonly<Record<string, number>>;

/** Starts profiling this process; the function it returns stops it and sums the busy samples by place. */
export async function startCpuProfile(): Promise<() => Promise<ProfileSummary>> {
  const stop = await startProfile(200);
  return async () => {
    const { ['(idle)']: _idle, ...busy } = (await stop()).byPlace;
    return busy;
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
