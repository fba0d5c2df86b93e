// The delivery pipeline on SQLite and on PostgreSQL, each figure next to a baseline from the same
// run: Realtime points/s against raw undici requests/s to the same receiver, Batch points/s against
// Realtime, ingest-to-delivery latency at a steady 500 points/s against raw undici at that rate, and
// ingest points/s against the same app with a queue that writes nothing; and Realtime and Batch with
// ordering PerDevice and with a rate limit, each against today's figure; and Realtime with a queue
// that writes nothing, what the deliverer reaches with no database work. Three processes: this one
// (the load), the API with its deliverer (delivery-server.ts), the receiver (delivery-receiver.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { requestsPerSecond } from '@platform/devtools/bench-report';
import { Pool } from 'undici';
import { telemetryPoint, testIngestToken } from '../test/harness.ts';
import { startPostgresCluster } from '@platform/devtools/postgres-cluster';
import { callerOf } from './delivery-ipc.ts';
import { epochMs, median, openLoop, percentile, rawPool, rawRequestOf, rawRequestsPerSecond, rawTaggedAtRate, spreadEndpoints } from './delivery-load.ts';
import {
  backends,
  batchPoints,
  ingestChunk,
  ingestConnections,
  ingestPointsPerRequest,
  latencyIntervalMs,
  latencyPointsPerRequest,
  latencyRequests,
  latencyWarmupMs,
  limitedBatchPoints,
  limitedRealtimePoints,
  noQueue,
  queueThread,
  realtimePoints,
  rounds,
  warmUpPoints,
  type CpuPerPoint,
  type RunOptions,
} from './delivery-plan.ts';
import type { receiverCalls } from './delivery-receiver.ts';
import type { Backend, DelivererReport, ServerReady, serverCalls } from './delivery-server.ts';
import type { secondDelivererCalls } from './delivery-second-deliverer.ts';
import type { ProfileSummary } from './delivery-report.ts';
import { printDeliverySummary, type RealtimeRound } from './delivery-summary.ts';
import { processTreeCpuMicros } from '@platform/devtools/process-cpu';
import { sourceCondition } from '@platform/devtools/source-condition';

function child(file: string, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [sourceCondition, resolve(import.meta.dirname, file)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

async function stopChild(process: ChildProcess): Promise<void> {
  if (process.exitCode !== null) return;
  process.kill();
  await once(process, 'exit');
}

const cluster = await startPostgresCluster();
const receiverProcess = child('delivery-receiver.ts');
let serverProcess: ChildProcess | undefined;
/** A second deliverer on the PostgreSQL store, in a process of its own (delivery-second-deliverer.ts). */
let secondProcess: ChildProcess | undefined;

try {
  const receiver = await callerOf<typeof receiverCalls>(receiverProcess);
  const receiverUrl = (receiver.ready as { url: string }).url;
  serverProcess = child('delivery-server.ts', { BENCH_RECEIVER_URL: receiverUrl, BENCH_POSTGRES_URL: cluster.url });
  const server = await callerOf<typeof serverCalls>(serverProcess);
  const { urls, devices, limits, settings, secondDeliverer } = server.ready as ServerReady;
  secondProcess = child('delivery-second-deliverer.ts', {
    BENCH_POSTGRES_DATABASE: secondDeliverer.database,
    BENCH_KEY_ID: secondDeliverer.keyId,
    BENCH_KEY: secondDeliverer.key,
  });
  const second = await callerOf<typeof secondDelivererCalls>(secondProcess);
  const perEndpoint = settings.maxInFlightPerEndpoint;
  const apiPools = new Map([...backends, queueThread].map((backend) => [backend, new Pool(urls[backend], { connections: 32 })]));
  const ingestHeaders = { authorization: `Bearer ${testIngestToken}`, 'content-type': 'application/json' };

  async function ingest(backend: Backend, points: readonly unknown[]): Promise<void> {
    const pool = apiPools.get(backend);
    if (!pool) throw new Error(`no pool for ${backend}`);
    const response = await pool.request({ path: '/internal/telemetry', method: 'POST', headers: ingestHeaders, body: JSON.stringify({ points }) });
    const text = await response.body.text();
    if (response.statusCode !== 202) throw new Error(`ingest on ${backend} answered ${response.statusCode}: ${text}`);
  }

  /** Queues `count` points of `feed`'s devices in turn while no deliverer runs, 1000 to a request, 4 requests at a time. */
  async function preIngest(backend: Backend, feed: readonly number[], count: number): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < count) {
        const size = Math.min(ingestChunk, count - next);
        const first = next;
        next += size;
        await ingest(
          backend,
          Array.from({ length: size }, (_, i) => telemetryPoint(feed[(first + i) % feed.length] ?? 0)),
        );
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
  }

  /** CPU microseconds the PostgreSQL server has used so far (its backends included), for the PostgreSQL runs. */
  function postgresCpu(backend: Backend): number | undefined {
    return backend === 'PostgreSQL' && cluster.serverPid !== undefined ? processTreeCpuMicros(cluster.serverPid) : undefined;
  }

  /** Points/s from starting a deliverer on a queue of `count` points to the receiver counting the last of them. */
  async function deliverQueued(backend: Backend, mode: 'Realtime' | 'Batch', count: number, options: RunOptions = {}) {
    const { profile = false, unsigned = false, feed, twoDeliverers = false, fanOut = 1, maxInFlight, noQueue = false } = options;
    await receiver.call('reset');
    // The queue that writes nothing is filled with copies of one point the store's log holds.
    await preIngest(backend, feed ?? [mode === 'Realtime' ? devices.realtime : devices.batch], noQueue ? 1 : count / fanOut);
    if (noQueue) await server.call('fillMemoryQueue', { count });
    const waiting = await server.call('queueStats', { backend });
    if (noQueue) {
      // The store is left with nothing waiting: the point it held is the copies' model.
      if (waiting.queued + waiting.gathering > 0)
        throw new Error(`${backend}: ${waiting.queued + waiting.gathering} left in the store beside the queue that writes nothing`);
    } else {
      // Batch points are in full batches from ingest on: the batches waiting, each of batchMaxPoints.
      const expected = mode === 'Realtime' ? waiting.queued : waiting.queued * settings.batchMaxPoints + waiting.gathering;
      if (expected !== count) throw new Error(`${backend} ${mode}: ${expected} waiting before the deliverer started, not ${count}`);
    }
    const receiverBefore = await receiver.call('cpu');
    const postgresBefore = postgresCpu(backend);
    const started = epochMs();
    await Promise.all([
      server.call('startDeliverer', { backend, profile, unsigned, noQueue, ...(maxInFlight !== undefined && { maxInFlight }) }),
      twoDeliverers ? second.call('start', { ...(maxInFlight !== undefined && { maxInFlight }) }) : undefined,
    ]);
    const { at } = await receiver.call('waitFor', { points: count, timeoutMs: 60_000 });
    const receiverUsed = (await receiver.call('cpu')) - receiverBefore;
    const postgresAfter = postgresCpu(backend);
    const [report, secondCpu] = await Promise.all([server.call('stopDeliverer', { backend }), twoDeliverers ? second.call('stop') : 0]);
    const cpu: CpuPerPoint = {
      deliverer: (report.cpuMicros + secondCpu) / count,
      receiver: receiverUsed / count,
      postgres: postgresBefore === undefined || postgresAfter === undefined ? undefined : (postgresAfter - postgresBefore) / count,
    };
    return { pointsPerSecond: count / ((at - started) / 1000), report, cpu };
  }

  // Warm-up: a short Realtime run on each store, profiled (for the report where a target is missed),
  // which also gives the request the raw baseline sends.
  const warmUpProfiles = new Map<Backend, ProfileSummary>();
  for (const backend of backends) {
    const { report } = await deliverQueued(backend, 'Realtime', warmUpPoints, { profile: true });
    if (report.profile) warmUpProfiles.set(backend, report.profile);
  }
  await deliverQueued(queueThread, 'Realtime', warmUpPoints);
  await deliverQueued('SQLite', 'Realtime', warmUpPoints, { noQueue: true });
  const sample = await receiver.call('sample');
  const rawRequest = rawRequestOf('/realtime', sample.headers, sample.body);
  const raw = rawPool(receiverUrl, perEndpoint);
  await rawRequestsPerSecond(raw, rawRequest, 2_000, perEndpoint);

  /** Each round's Realtime points/s of a store, and the mean requests/s of the raw runs just before and after it. */
  const realtimeRounds = new Map<string, RealtimeRound[]>();
  /** The most requests open at once at one endpoint in the two-deliverer runs: the per-endpoint limit holds across deliverers. */
  let mostOpenAtOneEndpoint = 0;
  const rawCpu: CpuPerPoint[] = [];
  const delivered = new Map<string, { samples: number[]; reports: DelivererReport[]; cpu: CpuPerPoint[] }>();
  const record = (key: string, run: { pointsPerSecond: number; report: DelivererReport; cpu: CpuPerPoint }) => {
    const entry = delivered.get(key) ?? { samples: [], reports: [], cpu: [] };
    entry.samples.push(run.pointsPerSecond);
    entry.reports.push(run.report);
    entry.cpu.push(run.cpu);
    delivered.set(key, entry);
  };
  for (let round = 0; round < rounds; round++) {
    const receiverBefore = await receiver.call('cpu');
    const loadBefore = process.cpuUsage();
    let rawBefore = await rawRequestsPerSecond(raw, rawRequest, realtimePoints, perEndpoint);
    const load = process.cpuUsage(loadBefore);
    rawCpu.push({
      deliverer: (load.user + load.system) / realtimePoints,
      receiver: ((await receiver.call('cpu')) - receiverBefore) / realtimePoints,
      postgres: undefined,
    });
    // Each store's Realtime run against raw undici measured just before and just after it: the
    // machine's speed drifts within a round (raw undici alone moved by 1.5x from one run to the next
    // on the 2-CPU machine), so a run is compared with the baseline of its own moment.
    // The queue that writes nothing too (SQLite's API): what the deliverer reaches with no database work at all.
    const paired = [
      ...backends.map((backend) => ({ key: backend, backend, options: {} })),
      { key: noQueue, backend: 'SQLite' as const, options: { noQueue: true } },
    ];
    for (const { key, backend, options } of paired) {
      const run = await deliverQueued(backend, 'Realtime', realtimePoints, options);
      record(`${key} Realtime`, run);
      const rawAfter = await rawRequestsPerSecond(raw, rawRequest, realtimePoints, perEndpoint);
      realtimeRounds.set(key, [...(realtimeRounds.get(key) ?? []), { pointsPerSecond: run.pointsPerSecond, rawPerSecond: (rawBefore + rawAfter) / 2 }]);
      rawBefore = rawAfter;
    }
    // Scaling out on PostgreSQL: four endpoints answering after 20 ms, each deliverer with slots for
    // two of them (what a second deliverer is for: more slots), one deliverer and then two.
    const spread = [devices.realtimeSpread];
    const slots = 2 * perEndpoint;
    record(
      'PostgreSQL Realtime, four endpoints',
      await deliverQueued('PostgreSQL', 'Realtime', realtimePoints, { feed: spread, fanOut: spreadEndpoints, maxInFlight: slots }),
    );
    record(
      'PostgreSQL Realtime, two deliverers',
      await deliverQueued('PostgreSQL', 'Realtime', realtimePoints, { feed: spread, twoDeliverers: true, fanOut: spreadEndpoints, maxInFlight: slots }),
    );
    mostOpenAtOneEndpoint = Math.max(mostOpenAtOneEndpoint, await receiver.call('mostOpen'));
    // What signing costs: the same run on SQLite (the store whose deliverer is CPU-bound) without the Standard Webhooks headers.
    record('SQLite Realtime unsigned', await deliverQueued('SQLite', 'Realtime', realtimePoints, { unsigned: true }));
    record(`${queueThread} Realtime`, await deliverQueued(queueThread, 'Realtime', realtimePoints));
    for (const backend of backends) record(`${backend} Batch`, await deliverQueued(backend, 'Batch', batchPoints));
    // The same with ordering PerDevice (Realtime: 16 devices, a stream each; Batch: one batch stream), and with a rate limit.
    for (const backend of backends) {
      record(`${backend} Realtime PerDevice`, await deliverQueued(backend, 'Realtime', realtimePoints, { feed: devices.realtimeOrdered }));
      record(`${backend} Batch PerDevice`, await deliverQueued(backend, 'Batch', batchPoints, { feed: [devices.batchOrdered] }));
      record(`${backend} Realtime limited`, await deliverQueued(backend, 'Realtime', limitedRealtimePoints, { feed: [devices.realtimeLimited] }));
      record(`${backend} Batch limited`, await deliverQueued(backend, 'Batch', limitedBatchPoints, { feed: [devices.batchLimited] }));
    }
  }
  const throughput = (key: string) => median(delivered.get(key)?.samples ?? []);

  // Latency at a steady rate: raw undici to the receiver, then each store's ingest with its deliverer running.
  const latencyFigures: { name: string; p50Ms: number; p99Ms: number }[] = [];
  const measuredLatencies = async (startedAt: number) => {
    const pairs = await receiver.call('latencies');
    const kept = pairs.filter(([sentAt]) => sentAt >= startedAt + latencyWarmupMs).map(([, latency]) => latency);
    return { p50Ms: percentile(kept, 0.5), p99Ms: percentile(kept, 0.99), count: kept.length };
  };
  await receiver.call('reset');
  let startedAt = epochMs();
  await rawTaggedAtRate(raw, rawRequest, latencyIntervalMs / latencyPointsPerRequest, latencyRequests * latencyPointsPerRequest);
  latencyFigures.push({ name: 'raw undici request to the receiver (baseline)', ...(await measuredLatencies(startedAt)) });
  const latencyReports = new Map<Backend, DelivererReport>();
  // The queue thread too, not a target: what its two connections taking turns at SQLite's write lock do to the latency.
  for (const backend of [...backends, queueThread]) {
    await server.call('startDeliverer', { backend, profile: false });
    await receiver.call('reset');
    startedAt = epochMs();
    const answered: number[] = [];
    await openLoop(latencyIntervalMs, latencyRequests, async () => {
      const sentAt = epochMs();
      await ingest(
        backend,
        Array.from({ length: latencyPointsPerRequest }, () => telemetryPoint(devices.realtime, { tags: { sentAt: String(sentAt) } })),
      );
      if (sentAt >= startedAt + latencyWarmupMs) answered.push(epochMs() - sentAt);
    });
    await receiver.call('waitFor', { points: latencyRequests * latencyPointsPerRequest, timeoutMs: 60_000 });
    latencyReports.set(backend, await server.call('stopDeliverer', { backend }));
    latencyFigures.push(
      { name: `ingest to delivery on ${backend}`, ...(await measuredLatencies(startedAt)) },
      { name: `  of which the ingest request (send to 202)`, p50Ms: percentile(answered, 0.5), p99Ms: percentile(answered, 0.99) },
    );
  }

  // Ingest alone, no deliverer running.
  const points = Array.from({ length: ingestPointsPerRequest }, () => telemetryPoint(devices.realtime));
  const ingestTarget = (url: string) => ({
    url: `${url}/internal/telemetry`,
    method: 'POST' as const,
    headers: ingestHeaders,
    body: JSON.stringify({ points }),
  });
  const ingestRates = await requestsPerSecond(
    { bare: ingestTarget(urls.bare), SQLite: ingestTarget(urls.SQLite), PostgreSQL: ingestTarget(urls.PostgreSQL) },
    { connections: ingestConnections, secondsPerRound: 2, rounds },
  );

  printDeliverySummary({
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
  });
  for (const pool of apiPools.values()) await pool.close();
  await raw.close();
} finally {
  if (secondProcess) await stopChild(secondProcess);
  if (serverProcess) await stopChild(serverProcess);
  await stopChild(receiverProcess);
  cluster.stop();
}
