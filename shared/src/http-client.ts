// A small JSON GET client over the built-in fetch (undici) with a time limit, which tells a platform
// outage (connection refused, timeout) apart from an answer.
import { PlatformError } from './errors.ts';

export interface HttpClient {
  /** Sends a GET; rejects with PLATFORM_UNAVAILABLE when no answer arrives in time. */
  get(url: URL, headers: Readonly<Record<string, string>>): Promise<Response>;
}

export interface HttpClientOptions {
  /** Time limit of one request, from sending to the end of the headers. Default 10 000. */
  timeoutMs?: number;
  /** The fetch implementation; the global one (undici) by default. */
  fetch?: typeof globalThis.fetch;
}

export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError(`createHttpClient: timeoutMs must be a positive whole number (got ${String(timeoutMs)})`);
  }
  const fetch = options.fetch ?? globalThis.fetch;
  return {
    async get(url, headers) {
      try {
        return await fetch(url, {
          method: 'GET',
          headers: { accept: 'application/json', ...headers },
          // A redirect would carry the bearer somewhere the caller did not choose.
          redirect: 'error',
          signal: AbortSignal.timeout(timeoutMs),
        });
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

/**
 * Reads a JSON body: PLATFORM_BAD_RESPONSE when it is not JSON, PLATFORM_UNAVAILABLE when the body
 * stalls past the time limit or the connection drops while it arrives.
 */
export async function readJson(response: Response): Promise<unknown> {
  let body: string;
  try {
    body = await response.text();
  } catch (error) {
    throw new PlatformError('PLATFORM_UNAVAILABLE', 'The platform stopped answering in the middle of a response.', { cause: error });
  }
  try {
    return JSON.parse(body) as unknown;
  } catch (error) {
    throw new PlatformError('PLATFORM_BAD_RESPONSE', 'The platform answered with a body that is not JSON.', { cause: error });
  }
}

/** Frees the connection of a response whose body is not read. */
export async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/** The error for a status that is neither success nor a refusal of the token. */
export function unexpectedStatus(response: Response, what: string): PlatformError {
  return response.status >= 500 || response.status === 429
    ? new PlatformError('PLATFORM_UNAVAILABLE', `${what}: the platform answered ${response.status}.`)
    : new PlatformError('PLATFORM_BAD_RESPONSE', `${what}: the platform answered an unexpected ${response.status}.`);
}

/** `{base}/{path}` for a base address without a trailing slash. */
export function endpoint(baseUrl: string, path: string): URL {
  return new URL(`${baseUrl}/${path.replace(/^\/+/, '')}`);
}
