// One delivery attempt over HTTP: build the request, send it through a keep-alive pool whose connector
// refuses private targets, read at most a prefix of the answer, and sort the result into delivered,
// retry or dropped. Nothing the endpoint or the network does makes it throw, and it logs nothing.
import { Agent } from 'undici';
import type { LookupFunction } from 'node:net';
import { buildDeliveryRequest, DeliveryBuildError, type DeliveryRequest } from './envelope.ts';
import type { AttemptResult, DecryptCredentials, OutgoingDelivery, WebhookSender } from './outgoing.ts';
import { exchange, type ExchangeAnswer } from './http-exchange.ts';
import { parseRetryAfter } from './retry-schedule.ts';
import { createTargetConnector, isTargetRefusedError } from './target-policy.ts';
import { createSigningKeys } from './signing-keys.ts';
import { errorText, redacted, secretsOf } from './redaction.ts';

export interface WebhookSenderOptions {
  readonly decryptCredentials: DecryptCredentials;
  /** Deliver to loopback, private and other special-purpose addresses too (development, on-premises). */
  readonly allowPrivateTargets: boolean;
  /** Default 10 s: resolving and connecting (TLS included). */
  readonly connectTimeoutMs?: number;
  /** Default 30 s: the whole attempt, from connecting to the last byte of the response prefix. */
  readonly requestTimeoutMs?: number;
  /** Default 1024: how much of the response body is kept for the attempt log; the rest is discarded unread. */
  readonly responsePrefixBytes?: number;
  /** Default 16: open connections per origin (scheme, host and port). */
  readonly maxConnectionsPerOrigin?: number;
  /** The clock of the envelope's Timestamp and of Retry-After dates. */
  readonly now?: () => Date;
  /** How host names are resolved (dns.lookup by default); every answer still passes the target policy. */
  readonly lookup?: LookupFunction;
  /** Default true. False leaves the Standard Webhooks headers out: only for the bench, to measure what signing costs. */
  readonly signDeliveries?: boolean;
}

const defaults = { connectTimeoutMs: 10_000, requestTimeoutMs: 30_000, responsePrefixBytes: 1024, maxConnectionsPerOrigin: 16 } as const;

function positiveInteger(name: keyof typeof defaults, value: number | undefined): number {
  const chosen = value ?? defaults[name];
  if (!Number.isSafeInteger(chosen) || chosen < 1) throw new TypeError(`createWebhookSender: ${name} must be a whole number of at least 1 (got ${chosen})`);
  return chosen;
}

/** The whole-request deadline, told apart from the caller's abort. */
class RequestTimeoutError extends Error {
  readonly code = 'WEBHOOK_REQUEST_TIMEOUT';
}

/** Network failures that may heal: a timeout, a reset, a refusal, a DNS answer that may come back. */
const networkCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);

/** The code of an error, looking into an AggregateError (one per address tried) and a cause. */
function codeOf(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string') return code;
  if (error instanceof AggregateError) return error.errors.map(codeOf).find((c) => c !== undefined);
  return codeOf(error.cause);
}

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.message === '' && error.errors.length > 0) return error.errors.map(messageOf).join('; ');
  return error instanceof Error ? error.message : String(error);
}

/** The Location of a redirect without its query string or user information, for the attempt log. */
function redirectTarget(location: string | undefined, base: URL): string {
  if (location === undefined) return 'no Location';
  try {
    const target = new URL(location, base);
    return `Location ${target.origin}${target.pathname}${target.search === '' ? '' : '?...'}`;
  } catch {
    return 'an unreadable Location';
  }
}

/** The aborts of the requests each outside signal (the deliverer's shutdown) governs. */
const followers = new WeakMap<AbortSignal, Set<(reason: Error) => void>>();

const reasonOf = (signal: AbortSignal): Error => (signal.reason instanceof Error ? signal.reason : new Error('aborted'));

/**
 * Calls `abort` when `signal` aborts, through one listener per signal whatever the number of
 * requests: AbortSignal.any for each request cost more than signing it. Returns the unfollow.
 */
function follow(signal: AbortSignal, abort: (reason: Error) => void): () => void {
  if (signal.aborted) {
    abort(reasonOf(signal));
    return () => undefined;
  }
  let aborts = followers.get(signal);
  if (!aborts) {
    const following = new Set<(reason: Error) => void>();
    aborts = following;
    followers.set(signal, following);
    signal.addEventListener(
      'abort',
      () => {
        for (const each of following) each(reasonOf(signal));
      },
      { once: true },
    );
  }
  aborts.add(abort);
  return () => aborts.delete(abort);
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const connectTimeoutMs = positiveInteger('connectTimeoutMs', options.connectTimeoutMs);
  const requestTimeoutMs = positiveInteger('requestTimeoutMs', options.requestTimeoutMs);
  const responsePrefixBytes = positiveInteger('responsePrefixBytes', options.responsePrefixBytes);
  const maxConnectionsPerOrigin = positiveInteger('maxConnectionsPerOrigin', options.maxConnectionsPerOrigin);
  const now = options.now ?? (() => new Date());
  const signingKeys = createSigningKeys(options.decryptCredentials);
  const agent = new Agent({
    connect: createTargetConnector({
      allowPrivateTargets: options.allowPrivateTargets,
      connectTimeoutMs,
      ...(options.lookup ? { lookup: options.lookup } : {}),
    }),
    connections: maxConnectionsPerOrigin,
    headersTimeout: requestTimeoutMs,
    bodyTimeout: requestTimeoutMs,
  });

  async function send(delivery: OutgoingDelivery, signal?: AbortSignal): Promise<AttemptResult> {
    const started = performance.now();
    const durationMs = (): number => Math.round(performance.now() - started);
    const dropped = (status: number | null, error: string, responsePrefix = ''): AttemptResult => ({
      outcome: 'dropped',
      status,
      error,
      durationMs: durationMs(),
      responsePrefix,
    });
    const retry = (status: number | null, error: string, retryAfterMs: number | undefined, responsePrefix = ''): AttemptResult => ({
      outcome: 'retrying',
      status,
      error,
      retryAfterMs,
      durationMs: durationMs(),
      responsePrefix,
    });

    let url: URL;
    try {
      url = new URL(delivery.url);
    } catch {
      return dropped(null, 'the configured url is not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return dropped(null, `the configured url has scheme ${url.protocol}; only http and https are sent`);

    const sentAt = now();
    let built: DeliveryRequest;
    try {
      built = buildDeliveryRequest(delivery, {
        sentAt: sentAt.toISOString(),
        decryptCredentials: options.decryptCredentials,
        sign: options.signDeliveries ?? true,
        signingKeys,
      });
    } catch (error) {
      const message = error instanceof DeliveryBuildError ? error.message : `the request could not be built (${messageOf(error)})`;
      return dropped(null, errorText(message, secretsOf(url, undefined)));
    }
    const secrets = secretsOf(url, built);

    /** Boxed: the catch below reads what the timer sets. */
    const deadline = { passed: false };
    const attempt = exchange(agent, { url, method: delivery.method, headers: built.headers, body: built.body }, responsePrefixBytes);
    const timer = setTimeout(() => {
      deadline.passed = true;
      attempt.abort(new RequestTimeoutError(`timed out after ${requestTimeoutMs} ms (the whole request)`));
    }, requestTimeoutMs);
    const unfollow = signal === undefined ? undefined : follow(signal, attempt.abort);
    try {
      let answer: ExchangeAnswer;
      try {
        answer = await attempt.answer;
      } catch (error) {
        if (isTargetRefusedError(error)) return dropped(null, error.message);
        if (signal?.aborted === true) return retry(null, 'aborted: the sender was asked to stop before an answer came', undefined);
        if (deadline.passed) return retry(null, `timed out after ${requestTimeoutMs} ms (the whole request)`, undefined);
        const code = codeOf(error);
        const text = errorText(`${code ?? 'error'}: ${messageOf(error)}`, secrets);
        if (code === 'UND_ERR_INVALID_ARG' || code === 'ERR_INVALID_ARG_TYPE' || code === 'ERR_INVALID_ARG_VALUE' || code === 'ERR_INVALID_URL')
          return dropped(null, `the request could not be made (${text})`);
        // Anything else the network did (listed codes and unknown ones alike) may heal: try again later.
        return retry(null, networkCodes.has(code ?? '') ? text : `unexpected failure (${text})`, undefined);
      }

      const { status } = answer;
      const prefix = redacted(answer.prefix, secrets);
      if (status >= 200 && status < 300) return { outcome: 'delivered', status, durationMs: durationMs(), responsePrefix: prefix };
      const retryAfterMs = parseRetryAfter(answer.retryAfter, now());
      if (status === 429) return retry(status, 'the endpoint answered 429 Too Many Requests', retryAfterMs, prefix);
      if (status >= 500 && status < 600) return retry(status, `the endpoint answered ${status}`, retryAfterMs, prefix);
      if (status >= 300 && status < 400)
        return dropped(status, `redirects are not followed (the endpoint answered ${status} with ${redirectTarget(answer.location, url)})`, prefix);
      if (status >= 400 && status < 500) return dropped(status, `the endpoint answered ${status}; a 4xx other than 429 is not retried`, prefix);
      return dropped(status, `the endpoint answered ${status}, which is not an HTTP status`, prefix);
    } finally {
      clearTimeout(timer);
      unfollow?.();
    }
  }

  return {
    send,
    async close() {
      await agent.close();
    },
  };
}
