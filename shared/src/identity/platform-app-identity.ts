// One identity per app credentials per process: the same object, and so the same token cache, for
// the same client, wherever in the process it is asked for.
import { hash } from 'node:crypto';
import { ApiTokenProvider, type TokenProvider } from './api-token-provider.ts';
import { AppKeyResolver } from './app-key-resolver.ts';
import { platformFetch } from './back-channel.ts';
import { createHttpClient, type HttpClient } from '../http/client.ts';
import type { PlatformAppSettings } from '../settings/platform-settings.ts';
import type { Clock } from '../time/clock.ts';

/** The app's own identity: its client_credentials token and its app key. */
export interface PlatformAppIdentity {
  /** The app's OAuth client id (`APP_CLIENT_ID`). */
  readonly clientId: string;
  /** A client_credentials token with scope `api`; call it for every request. */
  accessToken(): Promise<string>;
  /** The app's key, or null when the client is linked to no custom app. */
  appKey(): Promise<string | null>;
  /** The provider to hand to anything built on this identity (the tool app's start takes it from here). */
  readonly tokenProvider: TokenProvider;
}

/** The HTTP client and clock an identity is first built with. */
export interface PlatformAppIdentityOptions {
  /** Used when the identity is first built; later calls for the same credentials get that identity. */
  httpClient?: HttpClient;
  /** Judges when tokens expire; default the system clock (a test passes its manual clock). */
  clock?: Clock;
}

const identities = new Map<string, PlatformAppIdentity>();

/** The process's identity for these credentials, built on first use. */
export function platformAppIdentity(settings: PlatformAppSettings, options: PlatformAppIdentityOptions = {}): PlatformAppIdentity {
  const key = hash('sha256', JSON.stringify([settings.issuerUrl, settings.apiBaseUrl, settings.appClientId, settings.appClientSecret]), 'base64url');
  let identity = identities.get(key);
  if (!identity) {
    identity = createIdentity(settings, options.httpClient ?? createPlatformHttpClient(settings), options.clock);
    identities.set(key, identity);
  }
  return identity;
}

function createIdentity(settings: PlatformAppSettings, httpClient: HttpClient, clock?: Clock): PlatformAppIdentity {
  const tokenProvider = new ApiTokenProvider({
    issuerUrl: settings.issuerUrl,
    clientId: settings.appClientId,
    clientSecret: settings.appClientSecret,
    scope: 'api',
    timeoutMs: settings.httpTimeoutMs,
    ...(clock && { clock }),
    ...fetchOption(settings),
  });
  const appKeys = new AppKeyResolver({ apiBaseUrl: settings.apiBaseUrl, tokenProvider, httpClient, ...(clock && { clock }) });
  return Object.freeze({
    clientId: settings.appClientId,
    accessToken: () => tokenProvider.getToken(),
    appKey: () => appKeys.resolve(),
    tokenProvider,
  });
}

/** The fetch of this app's platform requests: through PLATFORM_BACKCHANNEL_URL when it is set. */
function fetchOption(settings: PlatformAppSettings): { fetch?: typeof globalThis.fetch } {
  const fetch = platformFetch({ backChannelUrl: settings.backChannelUrl, identities: [settings.apiBaseUrl, settings.issuerUrl] });
  return fetch ? { fetch } : {};
}

/** An HTTP client for the platform API of these settings (its back channel, when one is set). */
export function createPlatformHttpClient(settings: PlatformAppSettings): HttpClient {
  return createHttpClient({ timeoutMs: settings.httpTimeoutMs, ...fetchOption(settings) });
}

/** The fetch a tool's platform API client sends with (its back channel, when one is set); undefined: the global one. */
export function platformFetchOf(settings: PlatformAppSettings): typeof globalThis.fetch | undefined {
  return fetchOption(settings).fetch;
}
