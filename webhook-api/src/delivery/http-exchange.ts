// One HTTP exchange of a delivery attempt, through an undici dispatcher with a handler of its own:
// the status, the two headers the sender reads (Retry-After, Location) and at most a prefix of the
// body. undici's request() makes a response stream (an async resource, a Readable and its events)
// and ties an abort signal to each request, for what this reads in a few lines. A prefix that is full ends the exchange and drops the
// connection (cheaper than reading a large body to reuse it); an error once the headers are in only
// shortens the prefix, since the status has decided the outcome.
import type { Dispatcher } from 'undici';

export interface ExchangeRequest {
  readonly url: URL;
  readonly method: Dispatcher.HttpMethod;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface ExchangeAnswer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly location: string | undefined;
  /** At most the prefix size of the body, as UTF-8 text. */
  readonly prefix: string;
}

export interface Exchange {
  readonly answer: Promise<ExchangeAnswer>;
  /** Ends the exchange with `reason`: before the headers, the answer rejects with it; after, it has what came. */
  readonly abort: (reason: Error) => void;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

const firstOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export function exchange(dispatcher: Dispatcher, request: ExchangeRequest, prefixBytes: number): Exchange {
  let settled = false;
  let status = 0;
  let retryAfter: string | undefined;
  let location: string | undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  let controller: Dispatcher.DispatchController | undefined;
  let abortedWith: Error | undefined;
  let resolve!: (answer: ExchangeAnswer) => void;
  let reject!: (error: unknown) => void;
  const answer = new Promise<ExchangeAnswer>((onAnswer, onError) => {
    resolve = onAnswer;
    reject = onError;
  });
  const finish = (): void => {
    if (settled) return;
    settled = true;
    resolve({ status, retryAfter, location, prefix: decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)) });
  };
  const fail = (error: unknown): void => {
    if (settled) return;
    if (status >= 200) {
      finish();
      return;
    }
    settled = true;
    reject(error);
  };
  const abort = (reason: Error): void => {
    if (settled) return;
    abortedWith ??= reason;
    controller?.abort(reason);
  };

  const handler: Dispatcher.DispatchHandler = {
    onRequestStart(started) {
      controller = started;
      if (abortedWith) started.abort(abortedWith);
    },
    onResponseStart(_controller, statusCode, headers) {
      if (statusCode < 200) return; // an informational answer: the real one follows
      status = statusCode;
      retryAfter = firstOf(headers['retry-after']);
      location = firstOf(headers.location);
    },
    onResponseData(current, chunk) {
      const room = prefixBytes - size;
      if (room > 0) {
        const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
        chunks.push(kept);
        size += kept.length;
      }
      if (size < prefixBytes) return;
      finish();
      // Nothing more is wanted: the connection goes rather than reading the rest.
      current.abort(new Error('the response prefix is full'));
    },
    onResponseEnd() {
      finish();
    },
    onResponseError(_controller, error) {
      fail(error);
    },
  };
  try {
    dispatcher.dispatch(
      {
        origin: request.url.origin,
        path: `${request.url.pathname}${request.url.search}`,
        method: request.method,
        headers: request.headers,
        body: request.body,
      },
      handler,
    );
  } catch (error) {
    fail(error);
  }
  return { answer, abort };
}
