// The app's key from GET {apiBaseUrl}/api/apps/me, asked with the app's own token. null means the
// client is linked to no custom app: only an administrator can fix that, so the answer is kept for
// a while and not retried harder. A refused token or an outage throws and is not kept. Concurrent
// callers share one request (lru-cache's fetchMethod).
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { TokenProvider } from './api-token-provider.ts';
import { systemClock, type Clock } from '../time/clock.ts';
import { PlatformError } from '../errors/platform-error.ts';
import { endpoint, type HttpClient } from '../http/client.ts';
import { discardBody, readPlatformAnswer } from '../http/platform-answer.ts';

/** Where an `AppKeyResolver` asks, and with which token provider. */
export interface AppKeyResolverOptions {
  apiBaseUrl: string;
  tokenProvider: TokenProvider;
  httpClient: HttpClient;
  /** How long a "linked to no app" answer is kept before asking again. Default 300. */
  unlinkedRecheckSeconds?: number;
  clock?: Clock;
}

/** What is known of the app: its key (null: linked to no app) and until when it is used. */
interface KnownApp {
  readonly appKey: string | null;
  /** Epoch milliseconds; Infinity for a key, which does not change for a client. */
  readonly until: number;
}

/** The one key of the one-entry cache. */
const thisApp = 'this-app';

const appsMeSchema = z.object({ appKey: z.string().min(1).nullable() });

/** The app's key from `GET /api/apps/me` with the app token, or null when the client is linked to no custom app; kept once known. */
export class AppKeyResolver {
  readonly #options: Required<AppKeyResolverOptions>;
  readonly #known: LRUCache<typeof thisApp, KnownApp>;

  constructor(options: AppKeyResolverOptions) {
    this.#options = { unlinkedRecheckSeconds: 300, clock: systemClock, ...options };
    this.#known = new LRUCache<typeof thisApp, KnownApp>({
      max: 1,
      perf: { now: this.#options.clock },
      ttlResolution: 0,
      fetchMethod: (_key, _stale, { options: setOptions }) => this.#fetch(setOptions),
    });
  }

  /** The app key, or null when the configured client is linked to no custom app. */
  async resolve(): Promise<string | null> {
    const known = this.#known.get(thisApp);
    if (known && known.until > this.#options.clock()) return known.appKey;
    // forceRefresh: a "no app" answer past its recheck time is asked again though lru-cache would still hand it out.
    const fetched = await this.#known.fetch(thisApp, { forceRefresh: true });
    if (!fetched) throw new PlatformError('PLATFORM_BAD_RESPONSE', 'GET /api/apps/me answered no app.');
    return fetched.appKey;
  }

  /** lru-cache's fetchMethod: one GET /api/apps/me; a key kept for good, "no app" until the recheck. */
  async #fetch(setOptions: { ttl?: number }): Promise<KnownApp> {
    const { apiBaseUrl, tokenProvider, httpClient, clock, unlinkedRecheckSeconds } = this.#options;
    const token = await tokenProvider.getToken();
    const response = await httpClient.get(endpoint(apiBaseUrl, 'api/apps/me'), { authorization: `Bearer ${token}` });
    if (response.status === 401) {
      await discardBody(response);
      tokenProvider.invalidate();
      throw new PlatformError('APP_TOKEN_REJECTED', "GET /api/apps/me refused the app's access token.");
    }
    const answer = await readPlatformAnswer(response, { what: 'GET /api/apps/me', schema: appsMeSchema });
    if (!answer) throw new PlatformError('PLATFORM_BAD_RESPONSE', 'GET /api/apps/me answered no app.');
    const { appKey } = answer;
    // An app key does not change for a client; "no app" is re-asked now and then.
    const until = appKey === null ? clock() + unlinkedRecheckSeconds * 1000 : Number.POSITIVE_INFINITY;
    // ttl 0 is no expiry in lru-cache.
    setOptions.ttl = appKey === null ? Math.max(1, unlinkedRecheckSeconds * 1000) : 0;
    return { appKey, until };
  }
}
