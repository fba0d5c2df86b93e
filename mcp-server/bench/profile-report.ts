// Where one side's CPU time goes beyond another's, from a CPU profile of the servers process taken
// over a turn of each (sequential calls, or calls in flight): what the gateway bench prints under a
// target it missed.
import type { Client } from '@modelcontextprotocol/client';
import { addedPerCall, type ProfileSummary } from './cpu-profile.ts';
import { callLoad } from './tool-call-load.ts';

export interface ProfiledTurn {
  readonly summary: ProfileSummary;
  readonly calls: number;
}

/** Profiles the servers (through `profile`) over `seconds` of calls from `clients`, `inFlight` at a time from each. */
export async function profiledTurn(
  clients: readonly Client[],
  inFlight: number,
  seconds: number,
  profile: (start: boolean) => Promise<unknown>,
): Promise<ProfiledTurn> {
  await callLoad(clients, inFlight, 0.2);
  await profile(true);
  const { calls } = await callLoad(clients, inFlight, seconds);
  return { summary: (await profile(false)) as ProfileSummary, calls };
}

/** `title`, then the places that cost `measured` the most more than `baseline`, in µs of the servers' CPU per call. */
export function printProfileDifference(title: string, measured: ProfiledTurn, baseline: ProfiledTurn, top = 8): void {
  const added = addedPerCall(measured.summary, measured.calls, baseline.summary, baseline.calls, top);
  console.log(
    `  ${title}: ${added.measured.toFixed(0)} µs per call against ${added.baseline.toFixed(0)} µs (profiled, so both higher than unprofiled); most added:`,
  );
  for (const row of added.top) {
    console.log(
      `    ${`+${(row.measured - row.baseline).toFixed(0)} µs`.padStart(9)}  ${row.place} (${row.measured.toFixed(0)} against ${row.baseline.toFixed(0)})`,
    );
  }
}
