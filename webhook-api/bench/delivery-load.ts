// The load the delivery benchmark makes: raw undici requests to the receiver at a fixed concurrency
// (the baseline), an open-loop schedule that fires at a steady rate whatever the answers do, and the
// statistics (median, percentiles) on one clock shared by every process of the machine.
import { Pool } from 'undici';

/** Epoch milliseconds with sub-millisecond resolution, comparable between processes of one machine. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

export const median = (values: readonly number[]): number => percentile(values, 0.5);

/** The nearest-rank percentile (`q` from 0 to 1). */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

/** What a request to the receiver looks like: the headers and body the deliverer sent it. */
export interface RawRequest {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The headers one connection's framing decides, which undici sets itself. */
const framing = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

export function rawRequestOf(path: string, headers: Readonly<Record<string, string>>, body: string): RawRequest {
  return { path, headers: Object.fromEntries(Object.entries(headers).filter(([name]) => !framing.has(name))), body };
}

/** One keep-alive undici pool to `origin` with `connections` connections: the baseline's client. */
export function rawPool(origin: string, connections: number): Pool {
  return new Pool(origin, { connections });
}

async function sendRaw(pool: Pool, request: RawRequest, body = request.body): Promise<void> {
  const response = await pool.request({ path: request.path, method: 'POST', headers: request.headers, body });
  await response.body.dump();
  if (response.statusCode !== 200) throw new Error(`the receiver answered ${response.statusCode}`);
}

/** Requests/s of `total` requests made `concurrency` at a time, each waiting for its answer. */
export async function rawRequestsPerSecond(pool: Pool, request: RawRequest, total: number, concurrency: number): Promise<number> {
  let left = total;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (left > 0) {
      left -= 1;
      await sendRaw(pool, request);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return total / ((performance.now() - started) / 1000);
}

/** The same envelope with the point's Tags.sentAt set to `sentAt`: what the latency receiver reads. */
export function taggedBody(body: string, sentAt: number): string {
  const envelope = JSON.parse(body) as { Point: { Tags: Record<string, string> } };
  envelope.Point.Tags.sentAt = String(sentAt);
  return JSON.stringify(envelope);
}

/** The raw request with the send time in its point's tags, `count` of them, one every `intervalMs`. */
export async function rawTaggedAtRate(pool: Pool, request: RawRequest, intervalMs: number, count: number): Promise<void> {
  await openLoop(intervalMs, count, async () => sendRaw(pool, request, taggedBody(request.body, epochMs())));
}

/**
 * Fires `fire` `count` times, the i-th at start + i × `intervalMs` (late ones at once, to catch up),
 * never waiting for an earlier one to finish: the load of many independent senders. Resolves when
 * every one has finished; rejects with the first failure.
 */
export async function openLoop(intervalMs: number, count: number, fire: (index: number) => Promise<void>): Promise<void> {
  const started = performance.now();
  const running: Promise<void>[] = [];
  const failures: Error[] = [];
  for (let index = 0; index < count && failures.length === 0;) {
    const wait = started + index * intervalMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    for (const now = performance.now(); index < count && started + index * intervalMs <= now; index++) {
      running.push(
        fire(index).catch((error: unknown) => {
          failures.push(error instanceof Error ? error : new Error(String(error)));
        }),
      );
    }
  }
  await Promise.all(running);
  if (failures[0]) throw failures[0];
}

/**
 * The scale-out runs' endpoints: an endpoint's log is sent by one deliverer at a time (its cursor's
 * holder), so deliverers share a queue by sharing its endpoints.
 */
export const spreadEndpoints = 4;
