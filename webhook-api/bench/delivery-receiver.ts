// The webhook endpoint of the delivery benchmark, in a process of its own so it never shares the
// deliverer's event loop: a keep-alive node:http server answering 200 as soon as a body is in, then
// counting the points it carried and, for a point tagged with its send time, the latency to arrival.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { once } from 'node:events';
import { epochMs } from './delivery-load.ts';
import { serveCalls } from './delivery-ipc.ts';

/** A request as it came, for the raw-undici baseline to send the same. */
export interface SampleRequest {
  readonly headers: Record<string, string>;
  readonly body: string;
}

interface Envelope {
  readonly Point?: { readonly Tags?: { readonly sentAt?: string } };
  readonly Points?: readonly unknown[];
}

let count = 0;
let requests = 0;
let connections = 0;
let sample: SampleRequest | undefined;
/** [sent at, arrival − sent] in epoch milliseconds, one per tagged point. */
let latencies: [number, number][] = [];
const waiters = new Set<() => void>();

function record(body: string, headers: IncomingHttpHeaders, arrivedAt: number): void {
  requests += 1;
  sample ??= { headers: Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string')), body };
  const envelope = JSON.parse(body) as Envelope;
  count += envelope.Points?.length ?? 1;
  const sentAt = envelope.Point?.Tags?.sentAt;
  if (sentAt !== undefined) latencies.push([Number(sentAt), arrivedAt - Number(sentAt)]);
  for (const wake of waiters) wake();
}

/** The scale-out runs' endpoints answer after this long, so a deliverer's slots bound what it delivers. */
const spreadDelayMs = 20;
/** Requests open at each path now, and the most there were at once since the last reset. */
const open = new Map<string, number>();
let mostOpen = new Map<string, number>();

const server = createServer({ keepAlive: true, keepAliveTimeout: 60_000 }, (request, response) => {
  const chunks: Buffer[] = [];
  const path = request.url ?? '';
  const now = (open.get(path) ?? 0) + 1;
  open.set(path, now);
  if (now > (mostOpen.get(path) ?? 0)) mostOpen.set(path, now);
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const arrivedAt = epochMs();
    const answer = (): void => {
      open.set(path, (open.get(path) ?? 1) - 1);
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '2' });
      response.end('{}');
      record(Buffer.concat(chunks).toString('utf8'), request.headers, arrivedAt);
    };
    if (path.startsWith('/realtime-spread')) setTimeout(answer, spreadDelayMs);
    else answer();
  });
});
server.on('connection', () => {
  connections += 1;
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const address = server.address();
if (address === null || typeof address === 'string') throw new Error('the receiver has no port');

export const receiverCalls = {
  /** The most requests open at once at any one path since the last reset. */
  mostOpen: () => Promise.resolve(Math.max(0, ...mostOpen.values())),
  /** Forgets what came so far. */
  reset: () => {
    mostOpen = new Map();
    count = 0;
    requests = 0;
    sample = undefined;
    latencies = [];
    return Promise.resolve();
  },
  /** When (epoch ms) the `points`-th point had come; rejects after `timeoutMs`. */
  waitFor: ({ points, timeoutMs }: { points: number; timeoutMs: number }) =>
    new Promise<{ at: number }>((resolve, reject) => {
      const check = (): void => {
        if (count < points) return;
        done();
        resolve({ at: epochMs() });
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`the receiver got ${count} of ${points} points within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    }),
  latencies: () => Promise.resolve(latencies),
  sample: () => (sample ? Promise.resolve(sample) : Promise.reject(new Error('nothing was received yet'))),
  counts: () => Promise.resolve({ points: count, requests, connections }),
  /** CPU microseconds this process has used so far. */
  cpu: () => {
    const { user, system } = process.cpuUsage();
    return Promise.resolve(user + system);
  },
};

serveCalls(receiverCalls, { url: `http://127.0.0.1:${address.port}` });
