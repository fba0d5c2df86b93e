// Checks a token at the platform's GET /api/me: the caller, null when the token is refused, and a
// distinct error when the platform is down (an outage is never reported as an invalid token).
import type { Caller } from './caller.ts';
import { meResponseSchema, toCaller } from './caller.ts';
import type { CachedTokenResolver } from './cached-token-resolver.ts';
import type { CredentialScheme } from './extract-bearer.ts';
import type { HttpClient } from '../http/client.ts';
import { endpoint } from '../http/client.ts';
import { readPlatformAnswer } from '../http/platform-answer.ts';

/** One uncached check of `token` at `{apiBaseUrl}/api/me`, sent with `scheme` (Bearer by default). */
export async function fetchCaller(token: string, httpClient: HttpClient, apiBaseUrl: string, scheme: CredentialScheme = 'Bearer'): Promise<Caller | null> {
  const response = await httpClient.get(endpoint(apiBaseUrl, 'api/me'), { authorization: `${scheme} ${token}` });
  const me = await readPlatformAnswer(response, { what: 'GET /api/me', schema: meResponseSchema, absent: [401, 403] });
  return me ? toCaller(me) : null;
}

/**
 * Resolves a token to its caller: the person's id and companies with their permission sets.
 *
 * - null when the platform refuses the token (401 or 403);
 * - a caller with an empty company list for a valid token with no companies;
 * - throws PlatformError PLATFORM_UNAVAILABLE on 5xx, 429, a timeout or a connection failure, and
 *   PLATFORM_BAD_RESPONSE on an answer it cannot read or one too large; neither is reported as an
 *   invalid token.
 *
 * With a cache, a success is kept for min(maxTtlSeconds, the token's remaining lifetime).
 */
export async function resolveCaller(
  token: string,
  httpClient: HttpClient,
  apiBaseUrl: string,
  cache?: CachedTokenResolver<Caller>,
  maxTtlSeconds?: number,
): Promise<Caller | null> {
  const load = () => fetchCaller(token, httpClient, apiBaseUrl);
  return cache ? cache.resolve(token, load, maxTtlSeconds) : load();
}
