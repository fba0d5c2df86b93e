// The one reader of the platform's JSON answers: a status that means "refused" or "absent", an
// outage (5xx, 429, a body that stalls), a body too large to hold (capped, never buffered whole),
// and a body of the wrong shape, each told apart so that no outage reads as the caller's fault.
import type { z } from 'zod';
import { PlatformError } from '../errors/platform-error.ts';

/** The most of a platform answer a service reads: far more than any real answer, far less than a memory spike. */
export const defaultMaxAnswerBytes = 1024 * 1024;

/** How `readPlatformAnswer` reads an answer: which statuses mean absent, and the size cap. */
export interface PlatformAnswerOptions<S extends z.ZodType> {
  /** The request, for messages: `GET /api/me`. */
  readonly what: string;
  readonly schema: S;
  /** Statuses that mean "no such thing" or "refused"; answered as undefined. */
  readonly absent?: readonly number[];
  readonly maxBytes?: number;
}

/** The parsed 200 answer; undefined for an `absent` status; throws PlatformError for anything else. */
export async function readPlatformAnswer<S extends z.ZodType>(response: Response, options: PlatformAnswerOptions<S>): Promise<z.output<S> | undefined> {
  const { what, schema, absent = [], maxBytes = defaultMaxAnswerBytes } = options;
  if (absent.includes(response.status)) {
    await discardBody(response);
    return undefined;
  }
  if (response.status !== 200) {
    await discardBody(response);
    throw unexpectedStatus(response, what);
  }
  const parsed = schema.safeParse(await readJson(response, what, maxBytes));
  if (!parsed.success) {
    throw new PlatformError('PLATFORM_BAD_RESPONSE', `${what} answered a body of an unexpected shape.`, { cause: parsed.error });
  }
  return parsed.data;
}

/**
 * Reads a JSON body of at most `maxBytes`: PLATFORM_BAD_RESPONSE when it is larger or not JSON,
 * PLATFORM_UNAVAILABLE when it stalls past the time limit or the connection drops while it arrives.
 */
export async function readJson(response: Response, what: string, maxBytes = defaultMaxAnswerBytes): Promise<unknown> {
  const tooLarge = () => new PlatformError('PLATFORM_BAD_RESPONSE', `${what} answered a body larger than ${maxBytes} bytes.`);
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await discardBody(response);
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  const body: AsyncIterable<Uint8Array> = response.body ?? (async function* () {})();
  try {
    for await (const chunk of body) {
      received += chunk.byteLength;
      if (received > maxBytes) break;
      chunks.push(chunk);
    }
  } catch (error) {
    throw new PlatformError('PLATFORM_UNAVAILABLE', `${what}: the platform stopped answering in the middle of a response.`, { cause: error });
  }
  if (received > maxBytes) {
    await discardBody(response);
    throw tooLarge();
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch (error) {
    throw new PlatformError('PLATFORM_BAD_RESPONSE', `${what} answered with a body that is not JSON.`, { cause: error });
  }
}

/** Frees the connection of a response whose body is not read. */
export async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/** The error for a status that is neither success nor a refusal: an outage for 5xx and 429. */
export function unexpectedStatus(response: Response, what: string): PlatformError {
  return response.status >= 500 || response.status === 429
    ? new PlatformError('PLATFORM_UNAVAILABLE', `${what}: the platform answered ${response.status}.`)
    : new PlatformError('PLATFORM_BAD_RESPONSE', `${what}: the platform answered an unexpected ${response.status}.`);
}
