// The delivery benchmark's plan: the stores, the runs' sizes and the targets, shared by the runs
// (delivery.bench.ts) and their report (delivery-summary.ts).
import type { Backend } from './delivery-server.ts';

/** CPU microseconds per point delivered: the API+deliverer process (or the raw load), the PostgreSQL server, the receiver. */
export interface CpuPerPoint {
  readonly deliverer: number;
  readonly postgres: number | undefined;
  readonly receiver: number;
}

/** How a throughput run differs from a store's default Realtime or Batch run. */
export interface RunOptions {
  /** Profiled (the warm-up runs, not measured). */
  readonly profile?: boolean;
  /** Without the Standard Webhooks headers: what signing costs. */
  readonly unsigned?: boolean;
  /** The devices whose points are queued, in turn; the mode's own device when not given. */
  readonly feed?: readonly number[];
  /** PostgreSQL: the second deliverer's process started with the API's. */
  readonly twoDeliverers?: boolean;
  /** Deliveries each point makes (a device linked to several configurations). */
  readonly fanOut?: number;
  /** Each deliverer's maxInFlight, when not the production default. */
  readonly maxInFlight?: number;
  /** SQLite's API with its deliverer on the queue that writes nothing (delivery-memory-queue.ts): the bound of any queue design. */
  readonly noQueue?: boolean;
}

export const backends: readonly Backend[] = ['SQLite', 'PostgreSQL'];
/** SQLite with the deliverer's statements in a worker thread: what the thread buys, Realtime only. */
export const queueThread: Backend = 'SQLite, queue thread';
/** SQLite's API with its deliverer on a queue that writes nothing (delivery-memory-queue.ts): the bound of any queue design, Realtime only. */
export const noQueue = 'SQLite, no queue';
export const rounds = 3;
/** Points queued before each throughput run, ingested 1000 to a request; Batch gets more, its runs being much shorter. */
export const realtimePoints = 3_000;
export const batchPoints = 20_000;
export const warmUpPoints = 1_000;
export const ingestChunk = 1000;
/** The latency run: 5 points per ingest request every 10 ms (500 points/s) for 5.5 s; the first 0.5 s is warm-up, left out. */
export const latencyIntervalMs = 10;
export const latencyPointsPerRequest = 5;
export const latencyRequests = 550;
export const latencyWarmupMs = 500;
/** The ingest run: requests of 100 points, 8 in flight. */
export const ingestPointsPerRequest = 100;
export const ingestConnections = 8;
export const targets = { realtimeRatio: 0.5, batchRatio: 20, p99Ms: 25 };
/** Points of the rate-limited runs: two seconds' worth at their limits (1000 requests/s Realtime, 50 Batch requests/s of 100 points). */
export const limitedRealtimePoints = 2_000;
export const limitedBatchPoints = 10_000;
