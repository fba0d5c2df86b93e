// The one caller check every service runs, framework-free: an Authorization header in, the caller
// or a refusal with its reason out. The platform's GET /api/me (through the token cache) says who
// the token stands for and for which audiences it was issued; a token issued for another service
// is refused here, as is a delegated token where only the person's own (or another app's) belongs.
// A platform outage throws PlatformError: it is never a refusal of the caller.
import { CachedTokenResolver } from './cached-token-resolver.ts';
import type { Caller } from './caller.ts';
import type { Clock } from '../time/clock.ts';
import { parseCredential, type Credential, type CredentialScheme } from './extract-bearer.ts';
import type { HttpClient } from '../http/client.ts';
import { fetchCaller } from './resolve-caller.ts';
import { inSpan, isRecording } from '../observability/tracing.ts';

/**
 * `error` follows RFC 6750 section 3.1: none when no credential was sent, `invalid_request` for a
 * malformed or repeated Authorization header, `invalid_token` for a token refused for any reason.
 */
export type CallerCheckResult =
  | { readonly ok: true; readonly caller: Caller; readonly credential: Credential }
  | { readonly ok: false; readonly error: 'invalid_request' | 'invalid_token' | undefined; readonly description: string };

/** Which callers a service takes: a person's own token, a token delegated to one app, or both. */
export type ActorRule = 'person-only' | 'any' | { readonly clientId: string };

/** What `createCallerCheck` checks a token against: the platform, the audience, the actor rule and the cache. */
export interface CallerCheckOptions {
  /** Where GET /api/me lives. */
  readonly apiBaseUrl: string;
  /** The audience this service accepts: its own address (the platform API's base for the API's parts). */
  readonly audience: string;
  readonly httpClient: HttpClient;
  /** Lifetime of a cached success, capped by the token's own expiry; 0 checks every call. */
  readonly cacheTtlSeconds: number;
  /**
   * How old the cached answer's companies and permissions may be when a call uses them, in seconds
   * (fractions allowed). Unset (SPEC's default), an answer serves for the whole cache lifetime.
   * Set, the identity stays cached for cacheTtlSeconds, but the answer is refreshed in the
   * background past half this age and a call never uses one this old (it waits for the refresh):
   * a removed role, withdrawn consent or revoked token is refused within this bound.
   */
  readonly permissionsMaxAgeSeconds?: number;
  /** Bound on cached successes; default 10 000. */
  readonly cacheMaxEntries?: number;
  /** Default Bearer only; the platform API's parts also take ApiToken. */
  readonly schemes?: readonly CredentialScheme[];
  /** Default 'any'. */
  readonly actor?: ActorRule;
  readonly clock?: Clock;
  /** Told of each check that reached the cache: whether the platform was asked (a miss) or not (a hit); for a metric. */
  readonly observe?: (cached: boolean) => void;
}

/** Checks an `Authorization` header: the caller, or why the credential is refused. */
export type CallerCheck = (authorization: string | readonly string[] | undefined) => Promise<CallerCheckResult>;

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

function refusal(error: 'invalid_request' | 'invalid_token' | undefined, description: string): CallerCheckResult {
  return { ok: false, error, description };
}

/** Builds the check; options are checked here, once, with messages that name them. */
export function createCallerCheck(options: CallerCheckOptions): CallerCheck {
  const { apiBaseUrl, httpClient, cacheTtlSeconds, schemes = ['Bearer'], actor = 'any' } = options;
  if (!URL.canParse(options.audience)) throw new TypeError('createCallerCheck: audience must be an absolute URL');
  if (schemes.length === 0) throw new TypeError('createCallerCheck: schemes must name at least one scheme');
  const maxAge = options.permissionsMaxAgeSeconds;
  if (maxAge !== undefined && !(Number.isFinite(maxAge) && maxAge > 0)) throw new TypeError('createCallerCheck: permissionsMaxAgeSeconds must be more than 0');
  const audience = withoutTrailingSlash(options.audience);
  const cache = new CachedTokenResolver<Caller>({
    scope: apiBaseUrl,
    ttlSeconds: cacheTtlSeconds,
    ...(maxAge !== undefined && { maxAgeSeconds: maxAge }),
    ...(options.cacheMaxEntries !== undefined && { maxEntries: options.cacheMaxEntries }),
    ...(options.clock && { clock: options.clock }),
  });
  const schemeList = schemes.join(' or ');

  return async (authorization) => {
    if (authorization === undefined || authorization === '' || (Array.isArray(authorization) && authorization.length === 0)) {
      return refusal(undefined, `a ${schemeList} credential is required`);
    }
    if (typeof authorization !== 'string' && authorization.length > 1) return refusal('invalid_request', 'send one Authorization header, not several');
    const credential = parseCredential(authorization);
    if (!credential || !schemes.includes(credential.scheme)) return refusal('invalid_request', `the Authorization header must be a ${schemeList} credential`);

    // The scheme is part of the key: the same string as a bearer and as an API token are different credentials.
    const key = credential.scheme === 'Bearer' ? credential.token : `ApiToken ${credential.token}`;
    let asked = false;
    const lookUp = () =>
      cache.resolve(key, () => {
        asked = true;
        return fetchCaller(credential.token, httpClient, apiBaseUrl, credential.scheme);
      });
    // A span only inside a recorded trace: outside one (tracing off) it would be a no-op that still
    // costs a context and a closure on every call.
    const caller = isRecording()
      ? await inSpan('caller check', {}, async (span) => {
          const answer = await lookUp();
          span.setAttribute('platform.cache.hit', !asked);
          return answer;
        })
      : await lookUp();
    options.observe?.(!asked);
    if (!caller) return refusal('invalid_token', 'the token is invalid or expired');
    if (!caller.audience.some((aud) => aud === audience || withoutTrailingSlash(aud) === audience)) {
      return refusal('invalid_token', 'the token was not issued for this service');
    }
    if (actor === 'person-only' && caller.actor) return refusal('invalid_token', 'a delegated token is not accepted here');
    if (typeof actor === 'object' && caller.actor?.clientId !== actor.clientId) return refusal('invalid_token', 'the token is not delegated to this app');
    return { ok: true, caller, credential };
  };
}
