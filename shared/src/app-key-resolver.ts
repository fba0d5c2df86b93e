// The app's key from GET {apiBaseUrl}/api/apps/me, asked with the app's own token. null means the
// client is linked to no custom app: only an administrator can fix that, so the answer is kept for
// a while and not retried harder. A refused token or an outage throws and is not kept.
import { z } from 'zod';
import type { TokenProvider } from './api-token-provider.ts';
import { systemClock, type Clock } from './clock.ts';
import { PlatformError } from './errors.ts';
import { endpoint, type HttpClient } from './http-client.ts';
import { discardBody, readPlatformAnswer } from './platform-answer.ts';

/** Where an `AppKeyResolver` asks, and with which token provider. */
export interface AppKeyResolverOptions {
  apiBaseUrl: string;
  tokenProvider: TokenProvider;
  httpClient: HttpClient;
  /** How long a "linked to no app" answer is kept before asking again. Default 300. */
  unlinkedRecheckSeconds?: number;
  clock?: Clock;
}

const appsMeSchema = z.object({ appKey: z.string().min(1).nullable() });

/** The app's key from `GET /api/apps/me` with the app token, or null when the client is linked to no custom app; kept once known. */
export class AppKeyResolver {
  readonly #options: Required<AppKeyResolverOptions>;
  #known: { readonly appKey: string | null; readonly until: number } | undefined;
  #inflight: Promise<string | null> | undefined;

  constructor(options: AppKeyResolverOptions) {
    this.#options = { unlinkedRecheckSeconds: 300, clock: systemClock, ...options };
  }

  /** The app key, or null when the configured client is linked to no custom app. */
  resolve(): Promise<string | null> {
    const known = this.#known;
    if (known && known.until > this.#options.clock()) return Promise.resolve(known.appKey);
    this.#inflight ??= this.#fetch().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  async #fetch(): Promise<string | null> {
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
    this.#known = { appKey, until };
    return appKey;
  }
}
