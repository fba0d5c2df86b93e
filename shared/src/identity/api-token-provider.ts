// The app's own access token (OAuth client_credentials, scope `api`), via openid-client: discovered
// once, kept until shortly before it expires, one request shared by concurrent callers (lru-cache's
// fetchMethod), failures never kept, and errors that tell refused credentials from a platform outage.
import { LRUCache } from 'lru-cache';
import * as oauth from 'openid-client';
import { systemClock, type Clock } from '../time/clock.ts';
import { PlatformError } from '../errors/platform-error.ts';
import { isLoopbackHost } from '../http/loopback.ts';

/** Hands out a current access token; call it for every request, a held token goes stale. */
export interface TokenProvider {
  /** A client_credentials token of the app, scope `api`. */
  getToken(): Promise<string>;
  /** Drops the kept token after the platform refused it, so the next call fetches a new one. */
  invalidate(): void;
}

/** How an `ApiTokenProvider` reaches the platform's token endpoint, with the app's credentials. */
export interface ApiTokenProviderOptions {
  /** The OAuth issuer; its token endpoint is found by discovery. */
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  /** Default `api`. */
  scope?: string;
  /** Time limit of one request to the authorization server. Default 10 000. */
  timeoutMs?: number;
  /** Renew this many seconds before expiry (at most half the token's lifetime). Default 30. */
  renewBeforeExpirySeconds?: number;
  clock?: Clock;
  /**
   * The fetch of discovery and token requests; the global one (undici) by default. A back channel's
   * (backChannelFetch) reaches the issuer at another address, while its metadata is still checked
   * against issuerUrl.
   */
  fetch?: typeof globalThis.fetch;
}

interface HeldToken {
  readonly value: string;
  /** Epoch milliseconds from which a new token is fetched. */
  readonly renewAt: number;
}

/** The one key of the one-entry cache that holds the app token. */
const appToken = 'app-token';

const refusalErrors = new Set(['invalid_client', 'unauthorized_client', 'invalid_grant', 'invalid_scope', 'access_denied']);

export class ApiTokenProvider implements TokenProvider {
  readonly #options: Required<Omit<ApiTokenProviderOptions, 'clientSecret' | 'fetch'>>;
  readonly #fetch: typeof globalThis.fetch | undefined;
  readonly #clientAuth: oauth.ClientAuth;
  #configuration: oauth.Configuration | undefined;
  /** The held token and the request under way; a request begun before invalidate() is handed to its callers, not kept. */
  readonly #held: LRUCache<typeof appToken, HeldToken>;

  constructor(options: ApiTokenProviderOptions) {
    const issuer = URL.canParse(options.issuerUrl) ? new URL(options.issuerUrl) : undefined;
    if (!issuer || (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname)))) {
      throw new TypeError('ApiTokenProvider: issuerUrl must be an https URL (plain http on loopback only)');
    }
    if (!options.clientId) throw new TypeError('ApiTokenProvider: clientId is required');
    if (!options.clientSecret) throw new TypeError('ApiTokenProvider: clientSecret is required');
    this.#options = {
      issuerUrl: options.issuerUrl,
      clientId: options.clientId,
      scope: options.scope ?? 'api',
      timeoutMs: options.timeoutMs ?? 10_000,
      renewBeforeExpirySeconds: options.renewBeforeExpirySeconds ?? 30,
      clock: options.clock ?? systemClock,
    };
    this.#clientAuth = oauth.ClientSecretBasic(options.clientSecret);
    this.#fetch = options.fetch;
    this.#held = new LRUCache<typeof appToken, HeldToken>({
      max: 1,
      perf: { now: this.#options.clock },
      ttlResolution: 0,
      ignoreFetchAbort: true,
      fetchMethod: (_key, _stale, { options: setOptions }) => this.#fetchToken(setOptions),
    });
  }

  /** The app token: the kept one while it is fresh, else one new request shared by every concurrent caller. */
  async getToken(): Promise<string> {
    const now = this.#options.clock();
    const held = this.#held.get(appToken);
    if (held && held.renewAt > now) return held.value;
    // forceRefresh: a held token past renewAt is renewed though lru-cache would still hand it out.
    const fetched = await this.#held.fetch(appToken, { forceRefresh: true });
    if (!fetched) throw new PlatformError('PLATFORM_BAD_RESPONSE', 'The authorization server answered no token.');
    return fetched.value;
  }

  invalidate(): void {
    this.#held.delete(appToken);
  }

  /** lru-cache's fetchMethod: one token request; the token is kept until renewAt, one without a lifetime not at all. */
  async #fetchToken(setOptions: { ttl?: number }): Promise<HeldToken> {
    try {
      const configuration = await this.#discover();
      const response = await oauth.clientCredentialsGrant(configuration, { scope: this.#options.scope });
      const lifetime = response.expiresIn();
      const now = this.#options.clock();
      const renewBefore = lifetime === undefined ? 0 : Math.min(this.#options.renewBeforeExpirySeconds, lifetime / 2);
      // Without a positive lifetime the token is handed out once: renewAt is now, so it is never used again.
      const renewAt = lifetime !== undefined && lifetime > 0 ? now + (lifetime - renewBefore) * 1000 : now;
      setOptions.ttl = Math.max(1, renewAt - now);
      return { value: response.access_token, renewAt };
    } catch (error) {
      throw classifyTokenError(error);
    }
  }

  async #discover(): Promise<oauth.Configuration> {
    if (this.#configuration) return this.#configuration;
    const issuer = new URL(this.#options.issuerUrl);
    const configuration = await oauth.discovery(issuer, this.#options.clientId, undefined, this.#clientAuth, {
      timeout: Math.ceil(this.#options.timeoutMs / 1000),
      ...(this.#fetch && { [oauth.customFetch]: this.#fetch }),
      // Plain http is accepted only on loopback (the dev platform), checked above; the library
      // marks the switch deprecated only to make it stand out.
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      execute: issuer.protocol === 'http:' ? [oauth.allowInsecureRequests] : [],
    });
    this.#configuration = configuration;
    return configuration;
  }
}

/** Refused credentials, said so that an operator knows waiting will not mend them. */
const credentialsRejected = (why: string, cause: unknown) =>
  new PlatformError(
    'APP_CREDENTIALS_REJECTED',
    `The platform refused the app's client credentials (${why}): its client id or secret is not what the platform holds (a secret replaced since is refused too). This does not heal by itself: set the app's credentials and restart the service.`,
    { cause },
  );

/** Maps what openid-client throws to the SDK's codes: refused credentials, outage, or a bad answer. */
export function classifyTokenError(error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  const status = statusOf(error);
  if (status !== undefined && (status >= 500 || status === 429)) {
    return new PlatformError('PLATFORM_UNAVAILABLE', `The authorization server answered ${status}.`, { cause: error });
  }
  if (error instanceof oauth.ResponseBodyError && refusalErrors.has(error.error)) {
    return credentialsRejected(error.error, error);
  }
  if (status === 401 || error instanceof oauth.WWWAuthenticateChallengeError) {
    return credentialsRejected(`HTTP ${status ?? 401}`, error);
  }
  // fetch rejects with a bare TypeError when the connection fails; coded TypeErrors are misuse.
  const connectionFailed = error instanceof TypeError && !('code' in error);
  if (connectionFailed || (error instanceof oauth.ClientError && (error.code === 'OAUTH_TIMEOUT' || error.code === 'OAUTH_ABORT'))) {
    return new PlatformError('PLATFORM_UNAVAILABLE', 'The authorization server could not be reached.', { cause: error });
  }
  return new PlatformError('PLATFORM_BAD_RESPONSE', 'The authorization server answered with something unexpected.', { cause: error });
}

function statusOf(error: unknown): number | undefined {
  if (error instanceof oauth.ResponseBodyError || error instanceof oauth.WWWAuthenticateChallengeError) return error.status;
  if (error instanceof oauth.ClientError && error.cause instanceof Response) return error.cause.status;
  return undefined;
}
