// A real webhook endpoint for tests: an HTTP server on a loopback port that records every request and
// answers as the test scripts it (a status, headers, a body, a delay, a reset, or no answer at all).
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { localOrigin } from '@platform/tool-sdk/internal';
import { startedForTests } from '@platform/tool-sdk/testing';
import { afterEach } from 'vitest';

export interface ReceivedRequest {
  readonly method: string;
  /** Path and query as sent. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
  /** Date.now() when the request's body had arrived. */
  readonly at: number;
}

export interface ReceiverAnswer {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  /** A string, or a Buffer (sent as is); 'auto' length. */
  readonly body?: string | Buffer;
  /** Wait this long before answering. */
  readonly delayMs?: number;
  /** Destroy the connection without answering. */
  readonly reset?: true;
  /** Never answer (the connection stays open until the client gives up or the receiver closes). */
  readonly hang?: true;
}

/** Decides the answer to the `index`-th request (0-based, counted over the receiver's life). */
export type Responder = (request: ReceivedRequest, index: number) => ReceiverAnswer | Promise<ReceiverAnswer>;

export interface ReceiverOptions {
  /** '127.0.0.1' (default) or '::1'. */
  readonly host?: string;
  readonly respond?: Responder;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>` or `http://[::1]:<port>`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** Every request so far, in arrival order. */
  readonly received: ReceivedRequest[];
  /** Replaces how requests are answered from now on. */
  respond(responder: Responder): void;
  /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Connections accepted so far (keep-alive reuse shows as fewer connections than requests). */
  readonly connections: number;
  close(): Promise<void>;
}

const defaultAnswer: ReceiverAnswer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' };

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function answer(response: ServerResponse, reply: ReceiverAnswer): void {
  if (reply.reset === true) {
    response.socket?.destroy();
    return;
  }
  if (reply.hang === true) return;
  response.writeHead(reply.status ?? 200, reply.headers as Record<string, string | string[]> | undefined);
  response.end(reply.body ?? '');
}

export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  let responder: Responder = options.respond ?? (() => defaultAnswer);
  const received: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  let connections = 0;

  const server = createServer({ keepAlive: true }, (request, response) => {
    void (async () => {
      const body = await readBody(request);
      const entry: ReceivedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body,
        json: parsedJson(body),
        at: Date.now(),
      };
      const index = received.push(entry) - 1;
      for (const wake of waiters) wake();
      const reply = await responder(entry, index);
      if (reply.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      answer(response, reply);
    })().catch(() => {
      // A request the client abandoned mid-body, or a responder that threw: drop the connection.
      request.socket.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, host);
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the receiver has no port');

  return {
    url: localOrigin(host, address.port),
    port: address.port,
    received,
    get connections() {
      return connections;
    },
    respond(next) {
      responder = next;
    },
    waitFor(count, timeoutMs = 10_000) {
      if (received.length >= count) return Promise.resolve(received.slice(0, count));
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (received.length < count) return;
          done();
          resolve(received.slice(0, count));
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`the receiver got ${received.length} of ${count} requests within ${timeoutMs} ms`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      if (!server.listening) return;
      server.close();
      await once(server, 'close');
    },
  };
}

/** A receiver for the block's tests: it answers 204 unless a test says otherwise (`respond`), and again after each test. */
export function receiverForTests(): () => Receiver {
  const noContent: Responder = () => ({ status: 204 });
  const receiver = startedForTests(() => startReceiver({ respond: noContent }));
  afterEach(() => {
    receiver().respond(noContent);
  });
  return receiver;
}

/** The most requests that arrived within any `windowMs` (a sliding window starting at each arrival). */
export function mostInAnyWindow(requests: readonly ReceivedRequest[], windowMs = 1_000): number {
  const times = requests.map((r) => r.at).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while ((times[j] ?? Infinity) < (times[i] ?? 0) + windowMs) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

/**
 * Notes, for a receiver's responder, each device's requests (by the `device` and `seq` tags of a
 * Realtime point) in the order they arrive, and the most requests of one device it held at once
 * (each counted from its arrival until its answer is written).
 */
export function orderedArrivals() {
  const seqs = new Map<string, string[]>();
  const open = new Map<string, number>();
  const most = new Map<string, number>();
  const tagsOf = (request: ReceivedRequest) => (request.json as { Point?: { Tags?: Record<string, string> } } | undefined)?.Point?.Tags ?? {};
  const deviceOf = (request: ReceivedRequest) => Number(tagsOf(request).device);
  return {
    deviceOf,
    /** The seq tags of a device's requests to `path`, in arrival order (a retried point shows again). */
    seqs: (path: string, device: number) => seqs.get(`${path} ${device}`) ?? [],
    /** The most requests of one device to `path` the receiver held at once. */
    mostAtOnce: (path: string) => most.get(path) ?? 0,
    /** `answer` wrapped: the notes taken around it (a delay it asks for is waited out here, before the answer is written). */
    responder(answer: (request: ReceivedRequest) => ReceiverAnswer): Responder {
      return async (request) => {
        const key = `${request.path} ${deviceOf(request)}`;
        (seqs.get(key) ?? seqs.set(key, []).get(key))?.push(String(tagsOf(request).seq));
        const holding = (open.get(key) ?? 0) + 1;
        open.set(key, holding);
        most.set(request.path, Math.max(most.get(request.path) ?? 0, holding));
        const { delayMs, ...reply } = answer(request);
        if (delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, delayMs));
        open.set(key, (open.get(key) ?? 1) - 1);
        return reply;
      };
    },
  };
}

/** Answers that wait (200 each) until the test releases them: an endpoint whose slots the test keeps full. */
export function heldAnswers() {
  const waiting: (() => void)[] = [];
  return {
    respond: () =>
      new Promise<ReceiverAnswer>((resolve) => {
        waiting.push(() => {
          resolve({ status: 200 });
        });
      }),
    release: () => {
      for (const answer of waiting.splice(0)) answer();
    },
  };
}
