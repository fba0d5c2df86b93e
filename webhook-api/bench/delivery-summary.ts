// The delivery benchmark's report: each figure beside its baseline, the targets, where the
// deliverer's time and every process's CPU go, and a profile where a Realtime target is missed.
import { availableParallelism } from 'node:os';
import { printComparison, printLatencies } from '@platform/devtools/bench-report';
import { printTarget, type Target } from '@platform/devtools/bench-targets';
import { median, spreadEndpoints } from './delivery-load.ts';
import {
  backends,
  batchPoints,
  ingestConnections,
  ingestPointsPerRequest,
  latencyIntervalMs,
  latencyPointsPerRequest,
  latencyRequests,
  latencyWarmupMs,
  noQueue,
  queueThread,
  realtimePoints,
  rounds,
  targets,
  type CpuPerPoint,
} from './delivery-plan.ts';
import { printProfile, printSpanLine, type ProfileSummary } from './delivery-report.ts';
import type { Backend, DelivererReport, ServerReady } from './delivery-server.ts';

export interface DeliveryFigures {
  readonly settings: ServerReady['settings'];
  readonly limits: ServerReady['limits'];
  /** A run's points/s, the median of the rounds. */
  readonly throughput: (key: string) => number;
  /** Each round's Realtime run of a store, with the raw undici runs just before and after it. */
  readonly realtimeRounds: ReadonlyMap<string, readonly RealtimeRound[]>;
  /** The most requests open at once at one endpoint in the two-deliverer runs. */
  readonly mostOpenAtOneEndpoint: number;
  readonly latencyFigures: readonly { name: string; p50Ms: number; p99Ms: number }[];
  readonly ingestRates: Readonly<Record<'bare' | 'SQLite' | 'PostgreSQL', number>>;
  readonly delivered: ReadonlyMap<string, { samples: number[]; reports: DelivererReport[]; cpu: CpuPerPoint[] }>;
  readonly rawCpu: readonly CpuPerPoint[];
  readonly latencyReports: ReadonlyMap<Backend, DelivererReport>;
  readonly warmUpProfiles: ReadonlyMap<Backend, ProfileSummary>;
}

/** A store's Realtime run of one round, and raw undici around it: the mean of the runs just before and after it. */
export interface RealtimeRound {
  readonly pointsPerSecond: number;
  readonly rawPerSecond: number;
}

/** The Realtime target's figure: the median over the rounds of a run's points/s against raw undici around it. */
const realtimeRatio = (rounds: readonly RealtimeRound[]) => median(rounds.map((r) => r.pointsPerSecond / r.rawPerSecond));

function printRealtimeRounds(title: string, rounds: readonly RealtimeRound[], perEndpoint: number): void {
  const count = (value: number) => Math.round(value).toLocaleString('en-US');
  console.log(`\n${title}, each run against raw undici (${perEndpoint} in flight, same request) just before and after it`);
  for (const [index, round] of rounds.entries()) {
    console.log(
      `  round ${index + 1}: ${count(round.pointsPerSecond).padStart(7)} points/s against ${count(round.rawPerSecond).padStart(7)} req/s  ratio ${(round.pointsPerSecond / round.rawPerSecond).toFixed(2)}x`,
    );
  }
  console.log(`  ratio ${realtimeRatio(rounds).toFixed(2)}x (median of the rounds)`);
}

export function printDeliverySummary(figures: DeliveryFigures): void {
  const {
    settings,
    limits,
    throughput,
    realtimeRounds,
    mostOpenAtOneEndpoint,
    latencyFigures,
    ingestRates,
    delivered,
    rawCpu,
    latencyReports,
    warmUpProfiles,
  } = figures;
  const perEndpoint = settings.maxInFlightPerEndpoint;
  const how = `median of ${rounds} interleaved rounds; production delivery defaults (maxInFlight ${settings.maxInFlight}, ${perEndpoint} per endpoint, lease ${settings.leaseMs} ms, poll ${settings.pollMs} ms, batch ${settings.batchMaxPoints} points, linger ${settings.batchLingerMs} ms) with allowPrivateTargets`;
  console.log(
    `\nDelivery: ${how}; receiver, API+deliverer and load each in its own process; ${realtimePoints.toLocaleString('en-US')} Realtime / ${batchPoints.toLocaleString('en-US')} Batch points queued before the deliverer starts, timed until the receiver has counted the last`,
  );
  const verdicts: Target[] = [];
  printComparison(
    'What signing costs (Standard Webhooks id, timestamp and HMAC-SHA256 signature, each secret’s key kept after its first decryption), Realtime on SQLite',
    { name: 'Realtime points/s delivered, signed', value: throughput('SQLite Realtime'), unit: 'points/s' },
    { name: 'the same without the Standard Webhooks headers', value: throughput('SQLite Realtime unsigned'), unit: 'points/s' },
  );
  printComparison(
    'What a worker thread for the queue buys, Realtime on SQLite: the deliverer’s statements on a thread and connection of their own, or on the event loop’s (the default)',
    { name: 'Realtime points/s delivered, queue thread', value: throughput(`${queueThread} Realtime`), unit: 'points/s' },
    { name: 'the same, on the event loop (default)', value: throughput('SQLite Realtime'), unit: 'points/s' },
  );
  printComparison(
    'What the queue costs, Realtime on SQLite: the deliverer on a queue that serves copies of the same point from memory and writes nothing (the most any queue design could give it), or on the SQLite queue',
    { name: 'Realtime points/s delivered, SQLite queue', value: throughput('SQLite Realtime'), unit: 'points/s' },
    { name: 'the same on a queue writing nothing', value: throughput(`${noQueue} Realtime`), unit: 'points/s' },
  );
  printRealtimeRounds('Realtime delivery on a queue writing nothing (not a target: the bound above)', realtimeRounds.get(noQueue) ?? [], perEndpoint);
  for (const backend of backends) {
    const realtime = throughput(`${backend} Realtime`);
    const batch = throughput(`${backend} Batch`);
    printRealtimeRounds(`Realtime delivery on ${backend}`, realtimeRounds.get(backend) ?? [], perEndpoint);
    if (backend === 'PostgreSQL') {
      const two = throughput('PostgreSQL Realtime, two deliverers');
      const one = throughput('PostgreSQL Realtime, four endpoints');
      printComparison(
        `Realtime delivery on PostgreSQL to ${spreadEndpoints} endpoints answering after 20 ms, each deliverer with ${2 * perEndpoint} slots, with two deliverer processes on the same queue (the API’s and one of its own)`,
        { name: 'Realtime points/s delivered, two deliverers', value: two, unit: 'points/s' },
        { name: 'the same with one deliverer', value: one, unit: 'points/s' },
      );
      console.log(`  requests open at once at one endpoint, at most (two deliverers): ${mostOpenAtOneEndpoint} (its limit: ${perEndpoint})`);
      verdicts.push({ name: 'Realtime PostgreSQL, two deliverers', figure: two / one, unit: 'x', of: 'one deliverer', atLeast: 1 });
      verdicts.push({
        name: 'requests open at once at one endpoint, two deliverers',
        figure: mostOpenAtOneEndpoint,
        unit: '',
        of: 'its limit',
        atMost: perEndpoint,
      });
    }
    printComparison(
      `Batch delivery on ${backend} (full batches of ${settings.batchMaxPoints}: the linger never applies)`,
      { name: 'Batch points/s delivered', value: batch, unit: 'points/s' },
      { name: `Realtime points/s delivered on ${backend}`, value: realtime, unit: 'points/s' },
    );
    printComparison(
      `Realtime delivery with ordering PerDevice on ${backend} (16 devices, each a stream sent one at a time)`,
      { name: 'Realtime points/s delivered, PerDevice', value: throughput(`${backend} Realtime PerDevice`), unit: 'points/s' },
      { name: 'the same with ordering None (today’s)', value: realtime, unit: 'points/s' },
    );
    printComparison(
      `Batch delivery with ordering PerDevice on ${backend} (one batch stream: its batches one at a time)`,
      { name: 'Batch points/s delivered, PerDevice', value: throughput(`${backend} Batch PerDevice`), unit: 'points/s' },
      { name: 'the same with ordering None (today’s)', value: batch, unit: 'points/s' },
    );
    printComparison(
      `Realtime delivery with rateLimitPerSecond ${limits.realtime} on ${backend}`,
      { name: `Realtime points/s delivered, limited to ${limits.realtime} requests/s`, value: throughput(`${backend} Realtime limited`), unit: 'points/s' },
      { name: 'the same without a limit (today’s)', value: realtime, unit: 'points/s' },
    );
    printComparison(
      `Batch delivery with rateLimitPerSecond ${limits.batch} on ${backend} (full batches: ${limits.batch * settings.batchMaxPoints} points/s at the limit)`,
      { name: `Batch points/s delivered, limited to ${limits.batch} requests/s`, value: throughput(`${backend} Batch limited`), unit: 'points/s' },
      { name: 'the same without a limit (today’s)', value: batch, unit: 'points/s' },
    );
    verdicts.push(
      { name: `Realtime ${backend}`, figure: realtimeRatio(realtimeRounds.get(backend) ?? []), unit: 'x', of: 'raw undici', atLeast: targets.realtimeRatio },
      { name: `Batch ${backend}`, figure: batch / realtime, unit: 'x', of: 'Realtime', atLeast: targets.batchRatio, digits: 1 },
    );
  }
  printLatencies(
    `Latency at a steady ${(1000 / latencyIntervalMs) * latencyPointsPerRequest} points/s (${latencyPointsPerRequest} points per ingest request every ${latencyIntervalMs} ms, open loop, ${(latencyRequests * latencyIntervalMs) / 1000} s, first ${latencyWarmupMs} ms left out; the baseline: 1 request every ${latencyIntervalMs / latencyPointsPerRequest} ms): send to receiver arrival`,
    ...latencyFigures,
  );
  for (const figure of latencyFigures.filter((f) => f.name.startsWith('ingest to delivery') && !f.name.endsWith(queueThread)))
    verdicts.push({ name: `p99 ${figure.name}`, figure: figure.p99Ms, unit: ' ms', atMost: targets.p99Ms, digits: 1 });
  const bareFigure = { name: 'same app, queue writing nothing (baseline)', value: ingestRates.bare * ingestPointsPerRequest, unit: 'points/s' };
  for (const backend of ['SQLite', 'PostgreSQL'] as const) {
    printComparison(
      `Ingest on ${backend}: requests of ${ingestPointsPerRequest} points, ${ingestConnections} in flight, no deliverer running`,
      { name: `points accepted/s on ${backend}`, value: ingestRates[backend] * ingestPointsPerRequest, unit: 'points/s' },
      bareFigure,
    );
  }
  console.log('\nTargets');
  for (const target of verdicts) printTarget(target);

  // Where the time goes: the deliverer's queue calls and requests, summed over the measured runs.
  console.log('\nDeliverer time per delivery (queue calls timed around the store, requests from creation to headers; overlapping calls each count whole)');
  for (const [key, entry] of delivered) printSpanLine(key, entry.reports);
  for (const [backend, report] of latencyReports) printSpanLine(`${backend} latency`, [report]);

  // What bounds throughput on this machine: the CPU each process spends per point, summed, against
  // the CPUs there are (every process of the pipeline shares them).
  const cpus = availableParallelism();
  console.log(
    `\nCPU per point delivered, median of the rounds (µs; ${cpus} CPUs, so all together at most ${cpus.toLocaleString('en-US')} s of CPU per s: the ceiling is ${cpus} / total)`,
  );
  const cpuLine = (name: string, samples: readonly CpuPerPoint[], first: string) => {
    const of = (pick: (c: CpuPerPoint) => number | undefined) => {
      const values = samples.map(pick).filter((v): v is number => v !== undefined);
      return values.length === 0 ? undefined : median(values);
    };
    const sender = of((c) => c.deliverer) ?? 0;
    const postgres = of((c) => c.postgres);
    const receiving = of((c) => c.receiver) ?? 0;
    const total = sender + (postgres ?? 0) + receiving;
    console.log(
      `  ${name.padEnd(26)} ${first} ${sender.toFixed(0).padStart(4)}  PostgreSQL ${postgres === undefined ? '   -' : postgres.toFixed(0).padStart(4)}  receiver ${receiving.toFixed(0).padStart(4)}  total ${total.toFixed(0).padStart(4)}  ceiling ${Math.round(
        (cpus * 1e6) / total,
      )
        .toLocaleString('en-US')
        .padStart(7)} points/s`,
    );
  };
  cpuLine('raw undici (baseline)', rawCpu, 'load process  ');
  for (const [key, entry] of delivered) cpuLine(key, entry.cpu, 'API+deliverer ');

  // Where a throughput target is missed: the CPU profile of the warm-up run, what bounds it.
  for (const backend of backends) {
    if (realtimeRatio(realtimeRounds.get(backend) ?? []) >= targets.realtimeRatio) continue;
    const profile = warmUpProfiles.get(backend);
    if (profile) printProfile(`CPU profile of the API+deliverer process during the Realtime warm-up on ${backend}`, profile);
  }
}
