// The caller check behind requireCaller: the platform's GET /api/me through the SDK's token cache.
import { CachedTokenResolver, fetchCaller, type Caller, type HttpClient } from '@platform/shared';
import type { CallerCheck } from './caller-context.ts';

export function createCallerCheck(options: { httpClient: HttpClient; platformApiBaseUrl: string; ttlSeconds: number }): CallerCheck {
  const callers = new CachedTokenResolver<Caller>({ scope: options.platformApiBaseUrl, ttlSeconds: options.ttlSeconds });
  return ({ scheme, token }) =>
    // The scheme is part of the key: the same string as a bearer and as an API token are different credentials.
    callers.resolve(scheme === 'Bearer' ? token : `ApiToken ${token}`, () => fetchCaller(token, options.httpClient, options.platformApiBaseUrl, scheme));
}
