// Checks a token at the platform's GET /api/me: the caller, null when the token is refused, and a
// distinct error when the platform is down (an outage is never reported as an invalid token).
import type { Caller } from './caller.ts';
import { meResponseSchema, toCaller } from './caller.ts';
import type { CachedTokenResolver } from './cached-token-resolver.ts';
import type { CredentialScheme } from './extract-bearer.ts';
import { PlatformError } from './errors.ts';
import type { HttpClient } from './http-client.ts';
import { discardBody, endpoint, readJson, unexpectedStatus } from './http-client.ts';

/** One uncached check of `token` at `{apiBaseUrl}/api/me`, sent with `scheme` (Bearer by default). */
export async function fetchCaller(token: string, httpClient: HttpClient, apiBaseUrl: string, scheme: CredentialScheme = 'Bearer'): Promise<Caller | null> {
  const response = await httpClient.get(endpoint(apiBaseUrl, 'api/me'), { authorization: `${scheme} ${token}` });
  if (response.status === 401 || response.status === 403) {
    await discardBody(response);
    return null;
  }
  if (response.status !== 200) {
    await discardBody(response);
    throw unexpectedStatus(response, 'GET /api/me');
  }
  const parsed = meResponseSchema.safeParse(await readJson(response));
  if (!parsed.success) {
    throw new PlatformError('PLATFORM_BAD_RESPONSE', 'GET /api/me answered a body of an unexpected shape.', {
      cause: parsed.error,
    });
  }
  return toCaller(parsed.data);
}

/**
 * Resolves a token to its caller: the person's id and companies with their permission sets.
 *
 * - null when the platform refuses the token (401 or 403);
 * - a caller with an empty company list for a valid token with no companies;
 * - throws PlatformError PLATFORM_UNAVAILABLE on 5xx, 429, a timeout or a connection failure, and
 *   PLATFORM_BAD_RESPONSE on an answer it cannot read; neither is reported as an invalid token.
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
