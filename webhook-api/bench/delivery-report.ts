// The delivery benchmark's report of where the time went: the deliverer's time per delivery in each
// queue call, and a CPU profile summed by place and by function.
import { median } from './delivery-load.ts';
import type { DelivererReport } from './delivery-server.ts';
import type { ProfileSummary, Spans } from './delivery-spans.ts';

export type { ProfileSummary };

/** One line of the deliverer's time per delivery in each queue call, summed over `reports`. */
export function printSpanLine(name: string, reports: readonly DelivererReport[]): void {
  const total: Spans = {};
  for (const report of reports) {
    for (const [key, span] of Object.entries(report.spans)) {
      if (!span) continue;
      const sum = (total[key] ??= { calls: 0, items: 0, ms: 0 });
      sum.calls += span.calls;
      sum.items += span.items;
      sum.ms += span.ms;
    }
  }
  // Every delivery attempted is settled once, in whichever call wrote it.
  const deliveries = ['settle', 'settledWithClaim', 'settledWithRecheck'].reduce((sum, key) => sum + (total[key]?.items ?? 0), 0);
  const per = (key: string) => (deliveries > 0 ? ((total[key]?.ms ?? 0) * 1000) / deliveries : 0);
  const sizes = (key: string) => ((total[key]?.items ?? 0) / Math.max(1, total[key]?.calls ?? 0)).toFixed(1);
  const elu = median(reports.map((report) => report.eventLoopUtilization));
  console.log(
    `  ${name.padEnd(22)} claim ${per('claim').toFixed(0).padStart(4)} µs (${sizes('claim')}/call)  settle ${per('settle').toFixed(0).padStart(4)} µs (${sizes('settle')}/call)  settle+claim ${per('settleAndClaim').toFixed(0).padStart(4)} µs (${sizes('settledWithClaim')}+${sizes('settleAndClaim')}/call)  settle+recheck ${per('settleAndRecheck').toFixed(0).padStart(4)} µs (${sizes('settledWithRecheck')}+${sizes('settleAndRecheck')}/call)  nextDueAt ${per('nextDueAt').toFixed(0).padStart(3)} µs  request ${total.request ? `${per('request').toFixed(0).padStart(5)} µs` : '(profiled runs)'}  event loop busy ${(elu * 100).toFixed(0)}%`,
  );
}

/** A CPU profile's self time, by place and by function. */
export function printProfile(title: string, profile: ProfileSummary): void {
  const share = (ms: number) => `${((ms / profile.totalMs) * 100).toFixed(1).padStart(5)}%`;
  console.log(`\n${title}: self time, ${Math.round(profile.totalMs)} ms sampled`);
  console.log('  by place:');
  for (const [place, ms] of profile.places) console.log(`    ${share(ms)}  ${place}`);
  console.log('  by function:');
  for (const [name, ms] of profile.functions) console.log(`    ${share(ms)}  ${name}`);
}
