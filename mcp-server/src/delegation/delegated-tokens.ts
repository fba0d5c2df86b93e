// Delegated tokens for tool calls: the caller's token traded by RFC 8693 token exchange (subject =
// the person, actor = the tool service's app) through openid-client, the gateway authenticating as
// its own client. Each is kept in memory only, keyed by a hash of the issuer, the caller's token
// and the app, until shortly before it expires; concurrent requests for one key share one exchange
// (lru-cache's fetchMethod, as the SDK's token caches); failures are never kept.
import { hash } from 'node:crypto';
import type { Clock } from '@platform/tool-sdk';
import { isLoopbackHost, systemClock } from '@platform/tool-sdk/internal';
import { inSpan, tracer } from '@platform/tool-sdk/observability';
import { LRUCache } from 'lru-cache';
import * as oauth from 'openid-client';
import type { ServiceEndpoint } from '../remote-tools.ts';
import { DelegationError, classifyExchangeError } from './delegation-error.ts';

const tokenExchangeGrant = 'urn:ietf:params:oauth:grant-type:token-exchange';
const accessTokenType = 'urn:ietf:params:oauth:token-type:access_token';

/** What an exchange needs of a tool service: its app, and the app's latest token, read at the moment of use. */
export type DelegationTarget = Pick<ServiceEndpoint, 'appClientId' | 'actorToken'>;

/** A delegated token and when it expires (epoch ms; 0 when the platform did not say). */
export interface DelegatedToken {
  readonly value: string;
  readonly expiresAt: number;
}

export interface DelegatedTokens {
  /** A delegated token for this caller through the service's app; rejects with DelegationError. */
  get(callerToken: string, service: DelegationTarget): Promise<string>;
  /**
   * The same, with its expiry; the kept one only while at least `minLifeLeft` (0 to 1) of its
   * lifetime is left, a new exchange otherwise: what a long-running call (a task) renews its token with.
   */
  lease(callerToken: string, service: DelegationTarget, minLifeLeft?: number): Promise<DelegatedToken>;
  /** Drops the kept token of this caller and app (a tool service refused it), so the next get() exchanges again. */
  /**
   * Drops the kept token, so the next get() exchanges again. With `refused`, only when the kept
   * token is still that one: concurrent calls refused with the same token share one new exchange.
   */
  forget(callerToken: string, appClientId: string, refused?: string): void;
}

export interface DelegatedTokensOptions {
  /** The platform's OAuth issuer; its token endpoint is found by discovery. */
  readonly issuerUrl: string;
  /** The gateway's own confidential client (client_secret_basic). */
  readonly clientId: string;
  readonly clientSecret: string;
  /** Time limit of one request to the authorization server, in milliseconds. */
  readonly timeoutMs: number;
  readonly clock?: Clock;
  /** Bound on kept tokens; the least recently used go first. Default 10 000. */
  readonly maxEntries?: number;
  /** The fetch implementation; the global one (undici) by default. */
  readonly fetch?: typeof globalThis.fetch;
  /** Told of each token asked for (reused from the cache or not) and each exchange's duration: the gateway's metrics. */
  readonly observe?: DelegationObserver;
}

export interface DelegationObserver {
  asked(cached: boolean): void;
  exchanged(seconds: number, ok: boolean): void;
}

interface HeldToken extends DelegatedToken {
  /** Epoch milliseconds from which a new token is exchanged. */
  readonly renewAt: number;
  readonly issuedAt: number;
}

/** What a look-up hands the exchange it may begin: lru-cache passes it to fetchMethod as its context. */
interface ExchangeContext {
  readonly callerToken: string;
  readonly service: DelegationTarget;
}

/** Renew this long before expiry at most; a short-lived token is renewed when a quarter of its lifetime is left. */
const maxRenewMarginSeconds = 30;

export function createDelegatedTokens(options: DelegatedTokensOptions): DelegatedTokens {
  const { issuerUrl, clientId, clientSecret, timeoutMs, clock = systemClock, maxEntries = 10_000 } = options;
  const issuer = URL.canParse(issuerUrl) ? new URL(issuerUrl) : undefined;
  if (!issuer || (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname)))) {
    throw new TypeError('createDelegatedTokens: issuerUrl must be an https URL (plain http on loopback only)');
  }
  if (!clientId) throw new TypeError('createDelegatedTokens: clientId is required');
  if (!clientSecret) throw new TypeError('createDelegatedTokens: clientSecret is required');
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError(`createDelegatedTokens: timeoutMs must be a positive whole number (got ${String(timeoutMs)})`);
  }
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new TypeError(`createDelegatedTokens: maxEntries must be a positive whole number (got ${String(maxEntries)})`);
  }

  let configuration: Promise<oauth.Configuration> | undefined;

  // The token comes last and holds no line break (a bearer token's characters), nor does the
  // issuer's URL: no two (app, token) pairs share a key, without a JSON array written (and the whole
  // token scanned for escapes) on every call.
  const keyOf = (callerToken: string, appClientId: string) => hash('sha256', `${issuerUrl}\n${appClientId}\n${callerToken}`, 'base64url');

  // Discovered once; a failed discovery is not kept, so the next exchange tries again.
  const discover = () =>
    (configuration ??= oauth
      .discovery(issuer, clientId, undefined, oauth.ClientSecretBasic(clientSecret), {
        // openid-client counts in seconds; a fraction keeps the limit to the millisecond.
        timeout: timeoutMs / 1000,
        ...(options.fetch && { [oauth.customFetch]: options.fetch }),
        // Plain http is accepted only on loopback (the dev platform), checked above; the library
        // marks the switch deprecated only to make it stand out.
        // eslint-disable-next-line @typescript-eslint/no-deprecated
        execute: issuer.protocol === 'http:' ? [oauth.allowInsecureRequests] : [],
      })
      .catch((error: unknown) => {
        configuration = undefined;
        throw error;
      }));

  const exchange = async (callerToken: string, service: DelegationTarget): Promise<HeldToken> => {
    const actorToken = service.actorToken();
    // None held (a shared registration's token this replica cannot open): nothing to ask the platform.
    if (actorToken === '')
      throw new DelegationError('ACTOR_REFUSED', { reason: "the gateway holds no usable token of the tool's app until its next heartbeat" });
    const started = performance.now();
    let ok = false;
    try {
      const response = await oauth.genericGrantRequest(await discover(), tokenExchangeGrant, {
        subject_token: callerToken,
        subject_token_type: accessTokenType,
        actor_token: actorToken,
        actor_token_type: accessTokenType,
      });
      if (response.issued_token_type !== accessTokenType || response.token_type !== 'bearer') {
        throw new DelegationError('PLATFORM_BAD_RESPONSE', { reason: 'the token it issued is not a bearer access token' });
      }
      // expires_in as sent, not openid-client's count from real time, so an injected clock governs renewal.
      const lifetime = typeof response.expires_in === 'number' && response.expires_in > 0 ? response.expires_in : 0;
      const renewMargin = Math.min(maxRenewMarginSeconds, lifetime / 4);
      ok = true;
      const issuedAt = clock();
      return {
        value: response.access_token,
        renewAt: issuedAt + (lifetime - renewMargin) * 1000,
        issuedAt,
        expiresAt: lifetime > 0 ? issuedAt + lifetime * 1000 : 0,
      };
    } catch (error) {
      throw classifyExchangeError(error, service.appClientId, { callerToken, actorToken });
    } finally {
      options.observe?.exchanged((performance.now() - started) / 1000, ok);
    }
  };

  /**
   * The kept tokens and the exchanges under way: fetchMethod runs one exchange per key at a time and
   * shares it; a failed one keeps nothing; a key deleted (forget) or evicted while its exchange runs
   * keeps nothing from it, whose callers still get its token (ignoreFetchAbort). The entry's ttl,
   * up to renewAt, only frees memory: renewAt decides whether a kept token is used.
   */
  const held = new LRUCache<string, HeldToken, ExchangeContext>({
    max: maxEntries,
    perf: { now: clock },
    ttlResolution: 0,
    ignoreFetchAbort: true,
    fetchMethod: async (_key, _stale, { options: setOptions, context }) => {
      const token = await exchange(context.callerToken, context.service);
      // A token of unknown lifetime has renewAt now: handed to this exchange's callers, never used again.
      setOptions.ttl = Math.max(1, token.renewAt - clock());
      return token;
    },
  });

  /** The exchange under way for `key`, or a new one: concurrent requests share it. */
  const exchangeShared = async (key: string, callerToken: string, service: DelegationTarget): Promise<HeldToken> => {
    // forceRefresh: a kept token past renewAt (or too short-lived for a lease) is renewed though lru-cache would still hand it out.
    const token = await held.fetch(key, { forceRefresh: true, context: { callerToken, service } });
    if (!token) throw new DelegationError('PLATFORM_BAD_RESPONSE', { reason: 'no token came of the exchange' });
    return token;
  };

  /** The kept token, when it may be used with `minLifeLeft` of its lifetime left; an exchange (traced, shared) otherwise. */
  const obtain = (callerToken: string, service: DelegationTarget, minLifeLeft: number): Promise<HeldToken> => {
    const key = keyOf(callerToken, service.appClientId);
    const kept = held.get(key);
    const now = clock();
    if (kept && kept.renewAt > now && (minLifeLeft === 0 || kept.expiresAt - now >= (kept.expiresAt - kept.issuedAt) * minLifeLeft)) {
      options.observe?.asked(true);
      tracer()
        .startSpan('token exchange', { attributes: { 'platform.app.client_id': service.appClientId, 'platform.cache.hit': true } })
        .end();
      return Promise.resolve(kept);
    }
    options.observe?.asked(false);
    return inSpan('token exchange', { attributes: { 'platform.app.client_id': service.appClientId, 'platform.cache.hit': false } }, () =>
      exchangeShared(key, callerToken, service),
    );
  };

  return {
    async get(callerToken, service) {
      return (await obtain(callerToken, service, 0)).value;
    },
    async lease(callerToken, service, minLifeLeft = 0) {
      const { value, expiresAt } = await obtain(callerToken, service, minLifeLeft);
      return { value, expiresAt };
    },
    forget(callerToken, appClientId, refused) {
      const key = keyOf(callerToken, appClientId);
      if (refused === undefined || held.get(key)?.value === refused) held.delete(key);
    },
  };
}
