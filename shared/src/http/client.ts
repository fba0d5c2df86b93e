// A small JSON GET client over the built-in fetch (undici) with a time limit, which tells a platform
// outage (connection refused, timeout) apart from an answer.
import { PlatformError } from '../errors/platform-error.ts';

/** How the SDK sends HTTP requests: fetch with a timeout, never following redirects. */
export interface HttpClient {
  /** Sends a GET; rejects with PLATFORM_UNAVAILABLE when no answer arrives in time. */
  get(url: URL, headers: Readonly<Record<string, string>>): Promise<Response>;
}

/** The timeout of an `HttpClient`, and the fetch it wraps. */
export interface HttpClientOptions {
  /** Time limit of one request, from sending to the end of the headers. Default 10 000. */
  timeoutMs?: number;
  /** The fetch implementation; the global one (undici) by default. */
  fetch?: typeof globalThis.fetch;
}

/** An `HttpClient` with the given timeout. */
export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError(`createHttpClient: timeoutMs must be a positive whole number (got ${String(timeoutMs)})`);
  }
  const fetch = options.fetch ?? globalThis.fetch;
  return {
    async get(url, headers) {
      const signal = AbortSignal.timeout(timeoutMs);
      const send = () =>
        fetch(url, {
          method: 'GET',
          headers: { accept: 'application/json', ...headers },
          // A redirect would carry the bearer somewhere the caller did not choose.
          redirect: 'error',
          signal,
        });
      try {
        try {
          return await send();
        } catch (error) {
          // A kept-alive connection the server closed as it was reused: the GET is sent again, once.
          if (!droppedConnection(error) || signal.aborted) throw error;
          return await send();
        }
      } catch (error) {
        const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
        throw new PlatformError(
          'PLATFORM_UNAVAILABLE',
          timedOut ? `The platform did not answer within ${timeoutMs} ms.` : 'The platform could not be reached.',
          { cause: error },
        );
      }
    },
  };
}

const droppedCodes = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** Whether fetch failed because the connection dropped under the request (not a refusal, not a timeout). */
function droppedConnection(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return error instanceof TypeError && typeof cause?.code === 'string' && droppedCodes.has(cause.code);
}

/** `{base}/{path}` for a base address without a trailing slash. */
export function endpoint(baseUrl: string, path: string): URL {
  return new URL(`${baseUrl}/${path.replace(/^\/+/, '')}`);
}
