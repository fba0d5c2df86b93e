// A token-keyed cache of successful checks. The key is a SHA-256 of the whole token scoped to the
// issuer, never a claim; a success lives min(max TTL, the token's remaining lifetime); refusals and
// failures are never kept; concurrent look-ups of one token share one check. With a max age, an
// answer is also refreshed ahead of use, so what it says (permissions) is never older than that.
import { hash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { LRUCache } from 'lru-cache';
import { systemClock, type Clock } from '../time/clock.ts';

/** How long answers are kept, how many, and by which clock. */
export interface CachedTokenResolverOptions {
  /** The issuer or API base the tokens belong to; part of every key. */
  scope: string;
  /** Default lifetime of a success in seconds; 0 checks on every call. */
  ttlSeconds: number;
  /**
   * How old a kept answer may be when it is used, in seconds (fractions allowed). Unset, an answer
   * is used for its whole lifetime (SPEC's caller cache). Set, a look-up of an answer older than
   * `refreshAfterSeconds` is answered from the cache while one check in the background refreshes
   * it, and a look-up of an answer `maxAgeSeconds` old or older waits for a check begun within
   * `maxAgeSeconds`: no answer is ever used that was checked longer ago than that.
   */
  maxAgeSeconds?: number;
  /** When the background refresh begins; default half of maxAgeSeconds. */
  refreshAfterSeconds?: number;
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
  /** Epoch milliseconds when the check that answered it began: the world it reflects is no older. */
  readonly checkedAt: number;
}

/** What a look-up hands the fetch it may begin: lru-cache passes it to fetchMethod as its context. */
interface CheckContext<T> {
  readonly token: string;
  readonly check: TokenCheck<T>;
  readonly maxTtlSeconds: number;
}

/** When a key's fetch began; one object per fetch, so a fetch ends only its own record. */
interface Began {
  readonly at: number;
}

const positiveSeconds = (value: number | undefined) => value === undefined || (Number.isFinite(value) && value > 0);
const ignore = () => undefined;

/** The token-keyed cache behind the caller check: successes kept up to the setting and the token's own expiry, concurrent look-ups of one token sharing one check. */
export class CachedTokenResolver<T extends object> {
  readonly #scope: string;
  readonly #ttlSeconds: number;
  readonly #maxAgeMs: number | undefined;
  readonly #refreshAfterMs: number;
  readonly #clock: Clock;
  /**
   * The kept successes and the checks under way: lru-cache's fetchMethod runs one check per key at a
   * time and shares it; a refused check (undefined) or a failed one keeps nothing new; a key deleted
   * (forget, clear) while its check runs keeps nothing from that check, whose callers still get its answer.
   */
  readonly #cache: LRUCache<string, Entry<T>, CheckContext<T>>;
  /** When each key's running check began, for the max age rule (lru-cache does not say). */
  readonly #began = new Map<string, Began>();

  constructor(options: CachedTokenResolverOptions) {
    const { scope, ttlSeconds, maxAgeSeconds, maxEntries = 10_000, clock = systemClock } = options;
    const refreshAfterSeconds = options.refreshAfterSeconds ?? (maxAgeSeconds === undefined ? undefined : maxAgeSeconds / 2);
    if (!scope) throw new TypeError('CachedTokenResolver: scope must name the issuer or API base');
    if (!Number.isFinite(ttlSeconds) || ttlSeconds < 0) {
      throw new TypeError(`CachedTokenResolver: ttlSeconds must be 0 or more (got ${String(ttlSeconds)})`);
    }
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new TypeError(`CachedTokenResolver: maxEntries must be a positive whole number (got ${String(maxEntries)})`);
    }
    if (!positiveSeconds(maxAgeSeconds)) throw new TypeError(`CachedTokenResolver: maxAgeSeconds must be more than 0 (got ${String(maxAgeSeconds)})`);
    if (!positiveSeconds(refreshAfterSeconds) || (maxAgeSeconds !== undefined && (refreshAfterSeconds ?? 0) > maxAgeSeconds)) {
      throw new TypeError(`CachedTokenResolver: refreshAfterSeconds must be more than 0 and at most maxAgeSeconds (got ${String(refreshAfterSeconds)})`);
    }
    if (maxAgeSeconds === undefined && refreshAfterSeconds !== undefined) {
      throw new TypeError('CachedTokenResolver: refreshAfterSeconds needs maxAgeSeconds');
    }
    this.#scope = scope;
    this.#ttlSeconds = ttlSeconds;
    this.#maxAgeMs = maxAgeSeconds === undefined ? undefined : maxAgeSeconds * 1000;
    this.#refreshAfterMs = (refreshAfterSeconds ?? 0) * 1000;
    this.#clock = clock;
    this.#cache = new LRUCache<string, Entry<T>, CheckContext<T>>({
      max: maxEntries,
      // Read the injected clock on every look-up (the default caches "now" for 1 ms of real time).
      perf: { now: clock },
      ttlResolution: 0,
      // A failed refresh leaves the answer it would have replaced (still bounded by the max age).
      noDeleteOnFetchRejection: true,
      // forget and clear drop what a running check would keep, not the answer its callers wait for.
      ignoreFetchAbort: true,
      fetchMethod: (key, _stale, { options: setOptions, context }) => this.#check(key, context, setOptions),
    });
  }

  /** Number of kept successes (expired ones may still count until touched or evicted). */
  get size(): number {
    return this.#cache.size;
  }

  /**
   * The cached result for `token`, or the result of `check` on a miss. Only a non-null result is
   * kept, for min(maxTtlSeconds, the token's remaining lifetime); a token without a readable `exp`
   * is capped by maxTtlSeconds alone. maxTtlSeconds 0 calls `check` every time. With a max age,
   * a kept answer is refreshed as the options say; a refresh that answers null drops it.
   */
  async resolve(token: string, check: TokenCheck<T>, maxTtlSeconds: number = this.#ttlSeconds): Promise<T | null> {
    if (maxTtlSeconds <= 0) return check();
    const key = this.keyOf(token);
    const now = this.#clock();
    const context: CheckContext<T> = { token, check, maxTtlSeconds };
    // The kept answer, also while a refresh of it runs.
    const hit = this.#cache.get(key);
    if (hit !== undefined && hit.expiresAt > now) {
      const age = now - hit.checkedAt;
      if (this.#maxAgeMs === undefined || age < this.#refreshAfterMs) return hit.value;
      if (age < this.#maxAgeMs) {
        // Refresh ahead: this look-up is answered now; a failed refresh leaves the entry to age out.
        this.#fetch(key, context, hit).catch(ignore);
        return hit.value;
      }
    }
    if (Math.min(now + maxTtlSeconds * 1000, tokenExpiry(token) ?? Number.POSITIVE_INFINITY) <= now) return check();
    // A check begun too long ago cannot stand for an answer as fresh as the max age asks: start anew.
    const began = this.#began.get(key);
    if (began !== undefined && this.#maxAgeMs !== undefined && now - began.at >= this.#maxAgeMs) this.#cache.delete(key);
    const entry = await this.#fetch(key, context, hit);
    return entry?.value ?? null;
  }

  /** The running check of `key`, or a new one (also over a kept answer that may no longer be used). */
  async #fetch(key: string, context: CheckContext<T>, kept: Entry<T> | undefined): Promise<Entry<T> | undefined> {
    const entry = await this.#cache.fetch(key, { forceRefresh: true, context });
    // lru-cache puts a kept answer back when a check refuses; a refusal drops it instead.
    if (entry === undefined && kept !== undefined && this.#cache.peek(key, { allowStale: true }) === kept) this.#cache.delete(key);
    return entry;
  }

  /** lru-cache's fetchMethod: one check; a success kept for min(maxTtlSeconds, the token's expiry) from when it began. */
  async #check(key: string, { token, check, maxTtlSeconds }: CheckContext<T>, setOptions: { ttl?: number }): Promise<Entry<T> | undefined> {
    const began: Began = { at: this.#clock() };
    this.#began.set(key, began);
    try {
      const value = await check();
      if (value === null) return undefined;
      const expiresAt = Math.min(began.at + maxTtlSeconds * 1000, tokenExpiry(token) ?? Number.POSITIVE_INFINITY);
      // An answer whose token expired during the check is returned but never used again (expiresAt).
      setOptions.ttl = Math.max(1, expiresAt - this.#clock());
      return { value, expiresAt, checkedAt: began.at };
    } finally {
      if (this.#began.get(key) === began) this.#began.delete(key);
    }
  }

  /** Drops what is kept for `token`, so its next look-up checks again. */
  forget(token: string): void {
    this.#cache.delete(this.keyOf(token));
  }

  /** Forgets every kept answer and every check under way. */
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
