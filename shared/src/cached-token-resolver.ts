// A token-keyed cache of successful checks. The key is a SHA-256 of the whole token scoped to the
// issuer, never a claim; a success lives min(max TTL, the token's remaining lifetime); refusals and
// failures are never kept; concurrent look-ups of one token share one check.
import { hash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { LRUCache } from 'lru-cache';
import { systemClock, type Clock } from './clock.ts';

export interface CachedTokenResolverOptions {
  /** The issuer or API base the tokens belong to; part of every key. */
  scope: string;
  /** Default lifetime of a success in seconds; 0 checks on every call. */
  ttlSeconds: number;
  /** Bound on the number of kept successes; the least recently used go first. Default 10 000. */
  maxEntries?: number;
  clock?: Clock;
}

/** A check that answers null for a refused token; it is what the cache calls on a miss. */
export type TokenCheck<T> = () => Promise<T | null>;

interface Entry<T> {
  readonly value: T;
  /** Epoch milliseconds after which the entry is not used, whatever the LRU still holds. */
  readonly expiresAt: number;
}

interface FetchContext<T> {
  readonly check: TokenCheck<T>;
  readonly expiresAt: number;
}

/** Thrown inside the fetch so lru-cache keeps nothing for a refused token; never leaves this module. */
class RefusedToken extends Error {}

export class CachedTokenResolver<T extends object> {
  readonly #scope: string;
  readonly #ttlSeconds: number;
  readonly #clock: Clock;
  readonly #cache: LRUCache<string, Entry<T>, FetchContext<T>>;

  constructor(options: CachedTokenResolverOptions) {
    const { scope, ttlSeconds, maxEntries = 10_000, clock = systemClock } = options;
    if (!scope) throw new TypeError('CachedTokenResolver: scope must name the issuer or API base');
    if (!Number.isFinite(ttlSeconds) || ttlSeconds < 0) {
      throw new TypeError(`CachedTokenResolver: ttlSeconds must be 0 or more (got ${String(ttlSeconds)})`);
    }
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new TypeError(`CachedTokenResolver: maxEntries must be a positive whole number (got ${String(maxEntries)})`);
    }
    this.#scope = scope;
    this.#ttlSeconds = ttlSeconds;
    this.#clock = clock;
    this.#cache = new LRUCache<string, Entry<T>, FetchContext<T>>({
      max: maxEntries,
      perf: { now: clock },
      fetchMethod: async (_key, _stale, { context }) => {
        const value = await context.check();
        if (value === null) throw new RefusedToken();
        return { value, expiresAt: context.expiresAt };
      },
    });
  }

  /** Number of kept successes (expired ones may still count until touched or evicted). */
  get size(): number {
    return this.#cache.size;
  }

  /**
   * The cached result for `token`, or the result of `check` on a miss. Only a non-null result is
   * kept, for min(maxTtlSeconds, the token's remaining lifetime); a token without a readable `exp`
   * is capped by maxTtlSeconds alone. maxTtlSeconds 0 calls `check` every time.
   */
  async resolve(token: string, check: TokenCheck<T>, maxTtlSeconds: number = this.#ttlSeconds): Promise<T | null> {
    if (maxTtlSeconds <= 0) return check();
    const key = this.keyOf(token);
    const now = this.#clock();
    const hit = this.#cache.get(key);
    if (hit !== undefined && hit.expiresAt > now) return hit.value;

    const expiresAt = Math.min(now + maxTtlSeconds * 1000, tokenExpiry(token) ?? Number.POSITIVE_INFINITY);
    if (expiresAt <= now) return check();
    try {
      // An entry past our own expiry may not yet be stale to lru-cache (its test is a strict >).
      const entry = await this.#cache.fetch(key, { context: { check, expiresAt }, ttl: expiresAt - now, forceRefresh: hit !== undefined });
      return entry?.value ?? null;
    } catch (error) {
      if (error instanceof RefusedToken) return null;
      throw error;
    }
  }

  /** Drops what is kept for `token`, so its next look-up checks again. */
  forget(token: string): void {
    this.#cache.delete(this.keyOf(token));
  }

  clear(): void {
    this.#cache.clear();
  }

  /** The cache key: SHA-256 of the scope and the whole token. */
  keyOf(token: string): string {
    return hash('sha256', `${this.#scope}\n${token}`, 'base64url');
  }
}

/** The token's `exp` in epoch milliseconds, read without verifying; undefined when not a JWT with a numeric exp. */
export function tokenExpiry(token: string): number | undefined {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
