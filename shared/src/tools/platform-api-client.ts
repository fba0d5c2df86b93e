// The client a tool reaches the platform API through. It sends the call's delegated token as the
// bearer, and only to the platform API's base address (or another base the app declared part of
// the platform API, such as the webhook API on its own port): a path that would leave the base is
// a programming error, never a request (SPEC "Delegated call flow" rule 3). Answers other than 2xx
// become ToolErrors that carry the status and the platform's message, for the agent to read.
import { defaultMaxAnswerBytes, discardBody, readJson } from '../http/platform-answer.ts';
import { isPlatformError } from '../errors/platform-error.ts';
import { ToolError } from './tool-errors.ts';
import { hasInvisibleCharacters, oneLine } from '../text/text-safety.ts';
import { httpClientAttributes } from '../observability/http-attributes.ts';
import { inSpan, injectTraceHeaders, SpanKind, SpanStatusCode, type Span } from '../observability/tracing.ts';

/** An HTTP method a tool may send to the platform API. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A request's query, body and headers. */
export interface PlatformRequestOptions {
  /** Sent as JSON. */
  readonly body?: unknown;
  /** Added to the path as a query string; undefined values are left out. */
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Extra headers (never `authorization`: the client sets it). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The platform API as a tool calls it, with the caller's delegated token. */
export interface PlatformApiClient {
  /** The base address every request goes to. */
  readonly baseUrl: string;
  /**
   * Sends one request with the delegated token to `{baseUrl}{path}`; `path` starts with `/` and
   * stays under the base. Resolves to the parsed JSON of a 2xx answer (undefined when it has no
   * body); throws ToolError for any other answer, an unreachable API or an unreadable answer.
   */
  request(method: HttpMethod, path: string, options?: PlatformRequestOptions): Promise<unknown>;
  /** The JSON answer of `GET path`. */
  get(path: string, options?: Omit<PlatformRequestOptions, 'body'>): Promise<unknown>;
  /**
   * GETs one page of a paged list: its parsed JSON, and the path and query of the next page from the
   * answer's `Link: <...>; rel="next"` header (RFC 8288), when there is one and it stays under the base.
   */
  getPage(path: string, options?: Omit<PlatformRequestOptions, 'body'>): Promise<PlatformPage>;
}

/** One page of a list answer and the `Link` header's next page. */
export interface PlatformPage {
  /** This page's parsed JSON answer. */
  readonly body: unknown;
  /** The next page's path and query (under the base), or undefined on the last page. */
  readonly next: string | undefined;
}

/** The path and query of a `rel="next"` link that stays under the base; undefined otherwise. */
function nextPageOf(link: string | null, baseUrl: string): string | undefined {
  const target = /<([^>]+)>\s*;\s*rel="?next"?/.exec(link ?? '')?.[1];
  if (target === undefined) return undefined;
  const { base, prefix } = baseOf(baseUrl);
  let url: URL;
  try {
    url = new URL(target, base);
  } catch {
    return undefined;
  }
  if (url.origin !== base.origin || !(url.pathname.startsWith(prefix) || prefix === '/')) return undefined;
  const path = prefix === '/' ? url.pathname : url.pathname.slice(prefix.length - 1);
  return `${path}${url.search}`;
}

/** The base address, token and limits of a `PlatformApiClient`. */
export interface PlatformApiClientOptions {
  readonly baseUrl: string;
  /**
   * The delegated token sent as the bearer; a function is read at each request, so a client made
   * early in a call sends the token the call holds when it sends (one renewed during an MCP task).
   */
  readonly token: string | (() => string);
  /** Ends the request when the tool call ends (deadline or cancellation). */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** The name used in messages: `the platform API`, `the webhook API`. */
  readonly serviceName?: string;
  /** The fetch to send with; default the global one. */
  readonly fetch?: typeof globalThis.fetch;
}

const codeByStatus: Readonly<Record<number, string>> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'TOO_LARGE',
  422: 'INVALID_REQUEST',
  429: 'RATE_LIMITED',
};

/** The base without a trailing slash, and the path prefix every request must stay under. */
function baseOf(baseUrl: string): { base: URL; prefix: string } {
  const base = new URL(baseUrl);
  const prefix = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  return { base, prefix };
}

/** `{base}{path}` when it stays under the base; throws TypeError (a bug in the tool) otherwise. */
export function addressWithin(baseUrl: string, path: string, query?: PlatformRequestOptions['query']): URL {
  const { base, prefix } = baseOf(baseUrl);
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('\\') || hasInvisibleCharacters(path) || path.includes('#')) {
    throw new TypeError(`platform API client: "${path.slice(0, 100)}" is not a path under ${base.origin}${prefix}`);
  }
  const url = new URL(`${base.origin}${prefix.slice(0, -1)}${path}`);
  if (url.origin !== base.origin || !(url.pathname === prefix.slice(0, -1) || url.pathname.startsWith(prefix) || prefix === '/')) {
    throw new TypeError(`platform API client: "${path.slice(0, 100)}" leaves ${base.origin}${prefix}`);
  }
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.append(name, String(value));
  return url;
}

/**
 * The code a 4xx answer's `{ "error": { "code" } }` names (the webhook API's catalog: VALIDATION_FAILED,
 * LIMIT_REACHED, ...), so a tool reports the same code as the REST API; undefined when it names none.
 */
function ownCodeOf(body: unknown): string | undefined {
  const error = (body as { error?: unknown } | null | undefined)?.error;
  const code = error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(code) ? code : undefined;
}

/** What an error answer says, in one short line of visible text; the platform's own words when it gave them. */
function messageOf(body: unknown): string | undefined {
  const record = (value: unknown) => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined);
  const root = record(body);
  const nested = record(root?.error);
  const candidates = [nested?.message, root?.error_description, root?.message, typeof root?.error === 'string' ? root.error : undefined];
  const text = candidates.find((value): value is string => typeof value === 'string' && value.trim() !== '');
  // An answer's controls and text-direction controls are not passed on.
  return text === undefined ? undefined : oneLine(text).slice(0, 500);
}

/** A `PlatformApiClient` that sends the delegated token to `baseUrl` and nowhere else. */
export function createPlatformApiClient(options: PlatformApiClientOptions): PlatformApiClient {
  const { baseUrl, token, signal, timeoutMs, serviceName = 'the platform API' } = options;
  const tokenNow = typeof token === 'function' ? token : () => token;
  const fetch = options.fetch ?? globalThis.fetch;
  baseOf(baseUrl);

  // One client span per request, its traceparent on the request; the path only, never the query.
  const exchange = (method: HttpMethod, path: string, requestOptions: PlatformRequestOptions = {}): Promise<{ body: unknown; link: string | null }> => {
    const url = addressWithin(baseUrl, path, requestOptions.query);
    return inSpan(method, { kind: SpanKind.CLIENT, attributes: httpClientAttributes(method, url) }, (span) => send(method, url, requestOptions, span));
  };

  const send = async (method: HttpMethod, url: URL, requestOptions: PlatformRequestOptions, span: Span): Promise<{ body: unknown; link: string | null }> => {
    const what = `${method} ${url.pathname}`;
    // Headers, not an object: a tool's own Authorization, in any letter case, is replaced, never merged.
    const headers = new Headers({ accept: 'application/json', ...requestOptions.headers });
    headers.set('authorization', `Bearer ${tokenNow()}`);
    if (requestOptions.body !== undefined) headers.set('content-type', 'application/json');
    injectTraceHeaders(headers);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: requestOptions.body === undefined ? undefined : JSON.stringify(requestOptions.body),
        // A redirect is answered, never followed: it would carry the bearer somewhere the tool did not choose.
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
    } catch (error) {
      // The call itself ended (deadline, cancellation): that is the edge's to report, not the tool's.
      if (signal.aborted) throw signal.reason;
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      throw new ToolError(
        'UNAVAILABLE',
        `${serviceName} ${timedOut ? `did not answer ${what} within ${timeoutMs} ms` : 'could not be reached'}; try again shortly.`,
        {
          cause: error,
        },
      );
    }
    span.setAttribute('http.response.status_code', response.status);
    if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    if (response.status >= 300 && response.status < 400) {
      await discardBody(response);
      throw new ToolError('UNEXPECTED_REDIRECT', `${serviceName} answered ${what} with a redirect (${response.status}), which is not followed.`, {
        details: { status: response.status },
      });
    }
    let body: unknown;
    try {
      const empty = response.status === 204 || response.headers.get('content-length') === '0';
      body = empty ? undefined : await readJson(response, what, defaultMaxAnswerBytes);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (response.ok || !isPlatformError(error, 'PLATFORM_BAD_RESPONSE')) {
        const unavailable = isPlatformError(error, 'PLATFORM_UNAVAILABLE');
        throw new ToolError(
          unavailable ? 'UNAVAILABLE' : 'BAD_RESPONSE',
          `${serviceName} ${unavailable ? 'stopped answering' : 'answered unreadably'} to ${what}.`,
          {
            cause: error,
            details: { status: response.status },
          },
        );
      }
      body = undefined;
    }
    if (response.ok) return { body, link: response.headers.get('link') };
    const code = response.status >= 500 ? 'UNAVAILABLE' : (ownCodeOf(body) ?? codeByStatus[response.status] ?? `HTTP_${response.status}`);
    const said = messageOf(body);
    const field = (body as { error?: { field?: unknown } } | undefined)?.error?.field;
    throw new ToolError(code, `${serviceName} answered ${response.status} to ${what}${said ? `: ${said}` : '.'}`, {
      details: { status: response.status, ...(typeof field === 'string' && { field: field.slice(0, 200) }) },
    });
  };

  const request = async (method: HttpMethod, path: string, requestOptions?: PlatformRequestOptions) => (await exchange(method, path, requestOptions)).body;

  return Object.freeze({
    baseUrl,
    request,
    get: (path: string, getOptions?: Omit<PlatformRequestOptions, 'body'>) => request('GET', path, getOptions),
    async getPage(path: string, getOptions?: Omit<PlatformRequestOptions, 'body'>) {
      const { body, link } = await exchange('GET', path, getOptions);
      return { body, next: nextPageOf(link, baseUrl) };
    },
  });
}
