// Fetches a client ID metadata document as an authorization server must (draft-ietf-oauth-client-id-
// metadata-document): a GET bounded in time and size, no redirect followed, 200 with a JSON media
// type or nothing; and, since anyone can name any URL as a client_id, only from the addresses the
// webhook deliverer may reach. Those rules are the deliverer's own connector (one policy, not a
// copy), with one exception for development: a loopback host named literally (127.0.0.1, [::1],
// localhost) is reached when loopback is allowed, and must then really be this machine.
import { Agent, buildConnector, request } from 'undici';
import { isLoopbackHost } from '@platform/tool-sdk/internal';
// The deliverer's address policy, used as it is: the rules of which addresses an outgoing request
// of the platform may reach belong in one place (see the report of issue 33 on moving it to the SDK).
import { createGuardedLookup, createTargetConnector, isTargetRefusedError, refusedTarget } from '../../../../webhook-api/src/delivery/target-policy.ts';
import { ClientDocumentError } from './client-document-error.ts';
import type { CachingHeaders } from './http-freshness.ts';

export interface DocumentFetchOptions {
  /** Whether documents on this machine's loopback are fetched (development; never in production). */
  readonly allowLoopback: boolean;
  /** Time limit of the whole fetch, from connecting to the last byte. */
  readonly timeoutMs: number;
  /** Largest document taken, in bytes. */
  readonly maxBytes: number;
  /** Certificates trusted for https documents besides the system's (a test's own CA). */
  readonly ca?: string | undefined;
}

export interface FetchedDocument {
  /** The body, parsed as JSON. */
  readonly json: unknown;
  readonly headers: CachingHeaders;
}

export interface DocumentFetcher {
  fetch(url: string): Promise<FetchedDocument>;
  close(): Promise<void>;
}

const unavailable = (problem: string, cause?: unknown) => new ClientDocumentError('DOCUMENT_UNAVAILABLE', `the document ${problem}`, { cause });

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** application/json, or application/<something>+json. */
const isJsonType = (contentType: string | undefined) => /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(contentType?.trim() ?? '');

const tlsCodes = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME|TLS|SSL/;

/** The document could not be fetched: said as the person at the sign-in page can act on it. */
function fetchFailure(error: unknown, timeoutMs: number): ClientDocumentError {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (isTargetRefusedError(cause)) {
      return unavailable(
        `is not fetched: its host is ${cause.address}, a ${cause.addressClass} address, and documents are fetched from public addresses only`,
        error,
      );
    }
    const code = (cause as NodeJS.ErrnoException).code ?? '';
    if (code === 'ENOTFOUND' && cause.name === 'UnresolvedTargetError') return unavailable(`is not fetched: ${cause.message}`, error);
    if (cause.name === 'TimeoutError' || /TIMEOUT/.test(code)) return unavailable(`did not arrive within ${timeoutMs} ms`, error);
    if (tlsCodes.test(code)) return unavailable(`could not be fetched: its host's TLS certificate was not accepted (${code})`, error);
    if (code !== '') return unavailable(`could not be fetched (${code})`, error);
  }
  return unavailable('could not be fetched', error);
}

export function createDocumentFetcher(options: DocumentFetchOptions): DocumentFetcher {
  const { allowLoopback, timeoutMs, maxBytes } = options;
  const tls = options.ca === undefined ? {} : { ca: options.ca };
  const guarded = createTargetConnector({
    allowPrivateTargets: false,
    connectTimeoutMs: timeoutMs,
    connect: buildConnector({ timeout: timeoutMs, lookup: createGuardedLookup(), ...tls }),
  });
  const loopback = buildConnector({ timeout: timeoutMs, ...tls });
  const connect: buildConnector.connector = (target, callback) => {
    if (!allowLoopback || !isLoopbackHost(target.hostname)) {
      guarded(target, callback);
      return;
    }
    loopback(target, (error, socket) => {
      if (error !== null) {
        callback(error, null);
        return;
      }
      // "localhost" is a name: whatever it resolved to must be this machine.
      const remote = socket.remoteAddress;
      if (remote !== undefined && refusedTarget(remote)?.addressClass === 'loopback') {
        callback(null, socket);
        return;
      }
      socket.destroy();
      callback(Object.assign(new Error(`${target.hostname} did not lead to this machine`), { code: 'ECONNREFUSED' }), null);
    });
  };
  const agent = new Agent({ connect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  let closed: Promise<void> | undefined;

  return {
    async fetch(url) {
      const signal = AbortSignal.timeout(timeoutMs);
      let response: Awaited<ReturnType<typeof request>>;
      try {
        // No redirect is followed (undici's request follows none), and the connection is not kept:
        // documents are fetched seldom, each from a host of the client's choosing.
        response = await request(url, { dispatcher: agent, method: 'GET', headers: { accept: 'application/json' }, signal, reset: true });
      } catch (error) {
        throw fetchFailure(error, timeoutMs);
      }
      const { statusCode, headers, body } = response;
      try {
        if (statusCode !== 200) {
          const moved = statusCode >= 300 && statusCode < 400 ? ': redirects are not followed, the client_id must be the document itself' : '';
          throw unavailable(`was answered ${statusCode}, not 200${moved}`);
        }
        const contentType = first(headers['content-type']);
        if (!isJsonType(contentType)) throw unavailable(`was answered as ${contentType ?? 'no media type'}, not application/json`);
        if (Number(first(headers['content-length']) ?? 0) > maxBytes) throw unavailable(`is larger than ${maxBytes} bytes`);
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of body as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > maxBytes) throw unavailable(`is larger than ${maxBytes} bytes`);
          chunks.push(chunk);
        }
        let json: unknown;
        try {
          json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)));
        } catch {
          throw new ClientDocumentError('DOCUMENT_INVALID', 'the document is not valid JSON in UTF-8');
        }
        return {
          json,
          headers: {
            cacheControl: [headers['cache-control'] ?? []].flat().join(',') || undefined,
            expires: first(headers.expires),
            date: first(headers.date),
            age: first(headers.age),
          },
        };
      } catch (error) {
        throw error instanceof ClientDocumentError ? error : fetchFailure(error, timeoutMs);
      } finally {
        // A body left unread is dropped with its connection; the abort that causes is expected, not an error.
        body.on('error', () => undefined);
        body.destroy();
      }
    },
    close: () => (closed ??= agent.close()),
  };
}
