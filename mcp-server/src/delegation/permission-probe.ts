// What a caller may do through one app, for tools/list: the platform's GET /api/me asked with the
// delegated token answers the companies and permissions the person and the app both hold. Cached
// like any caller check, but what it says is never older than `maxAgeSeconds`, so a revoked
// permission leaves tools/list as fast as the calls that need it are refused; an answer not
// delegated to that app is not trusted. Listing is discovery hygiene: the tool service still
// enforces the permission on every call.
import type { Caller, Clock, HttpClient } from '@platform/tool-sdk';
import { CachedTokenResolver, fetchCaller } from '@platform/tool-sdk/internal';
import { DelegationError } from './delegation-error.ts';

export interface PermissionProbe {
  /**
   * Every permission the person and the app both hold at one company or more. Rejects with
   * DelegationError DELEGATED_TOKEN_REFUSED when the platform refuses the token or answers for
   * another app, and with PlatformError when the platform is unavailable or answers something
   * unreadable (an outage is never reported as a refusal).
   */
  permissionsOf(delegatedToken: string, appClientId: string): Promise<ReadonlySet<string>>;
}

export interface PermissionProbeOptions {
  /** Where GET /api/me lives. */
  readonly apiBaseUrl: string;
  readonly httpClient: HttpClient;
  /** Lifetime of a cached answer, capped by the token's own expiry; 0 asks every time. */
  readonly cacheTtlSeconds: number;
  /**
   * How old a cached answer's permissions may be when a list uses them, in seconds; past half of it
   * one background check refreshes them (CachedTokenResolver's max age). Unset: the whole lifetime.
   */
  readonly maxAgeSeconds?: number;
  /** Bound on cached answers; default 10 000. */
  readonly maxEntries?: number;
  readonly clock?: Clock;
}

export function createPermissionProbe(options: PermissionProbeOptions): PermissionProbe {
  const { apiBaseUrl, httpClient, cacheTtlSeconds } = options;
  if (!URL.canParse(apiBaseUrl)) throw new TypeError('createPermissionProbe: apiBaseUrl must be an absolute URL');
  const cache = new CachedTokenResolver<Caller>({
    scope: apiBaseUrl,
    ttlSeconds: cacheTtlSeconds,
    ...(options.maxEntries !== undefined && { maxEntries: options.maxEntries }),
    ...(options.maxAgeSeconds !== undefined && { maxAgeSeconds: options.maxAgeSeconds }),
    ...(options.clock && { clock: options.clock }),
  });

  return {
    async permissionsOf(delegatedToken, appClientId) {
      const caller = await cache.resolve(delegatedToken, () => fetchCaller(delegatedToken, httpClient, apiBaseUrl));
      if (!caller) throw new DelegationError('DELEGATED_TOKEN_REFUSED', { reason: `for client ${appClientId}` });
      if (caller.actor?.clientId !== appClientId) {
        throw new DelegationError('DELEGATED_TOKEN_REFUSED', { reason: `its answer is not delegated to client ${appClientId}` });
      }
      return new Set(caller.companies.flatMap((company) => [...company.permissions]));
    },
  };
}
