// Who is calling the registry: the app whose client-credentials token is in the call's one
// `authorization` metadata entry, as the platform's GET /api/apps/me says. Successes are cached by
// a hash of the whole token (never past its expiry); a refused token is asked about again; an
// outage is UNAVAILABLE; a client linked to no app is refused by name.
import { isPlatformError, type Clock, type HttpClient } from '@platform/tool-sdk';
import { CachedTokenResolver, endpoint, extractBearer, readPlatformAnswer, systemClock } from '@platform/tool-sdk/internal';
import { z } from 'zod';
import { RegistryError } from './registry-errors.ts';

/** An authenticated caller of the registry: the app's client id and key, the platform's word on publishing, and the token it presented. */
export interface AppCaller {
  readonly clientId: string;
  /** The app's key: the namespace of its permissions, and of the names its tools are exposed under. */
  readonly appKey: string;
  /** Whether the platform marks the app as a tool publisher (GET /api/apps/me `toolPublisher`); absent means no. */
  readonly toolPublisher: boolean;
  /** The app's client-credentials token: kept as the registration's actor token, never logged. */
  readonly token: string;
}

export interface AppTokenCheckOptions {
  readonly apiBaseUrl: string;
  readonly httpClient: HttpClient;
  /** Lifetime of a cached success in seconds, capped by the token's own expiry; 0 asks every time. Default 60. */
  readonly cacheTtlSeconds?: number;
  readonly clock?: Clock;
}

/** Checks the values of a call's `authorization` metadata; rejects with a RegistryError. */
export type AppTokenCheck = (authorization: readonly unknown[]) => Promise<AppCaller>;

const appsMeSchema = z.object({ clientId: z.string().min(1), appKey: z.string().min(1).nullable(), toolPublisher: z.boolean().optional() });
type AppsMe = z.output<typeof appsMeSchema>;

export function createAppTokenCheck(options: AppTokenCheckOptions): AppTokenCheck {
  const { apiBaseUrl, httpClient, cacheTtlSeconds = 60, clock = systemClock } = options;
  const url = endpoint(apiBaseUrl, 'api/apps/me');
  const cache = new CachedTokenResolver<AppsMe>({ scope: apiBaseUrl, ttlSeconds: cacheTtlSeconds, clock });

  const askPlatform = (token: string) => async (): Promise<AppsMe | null> => {
    const response = await httpClient.get(url, { authorization: `Bearer ${token}` });
    // 401: no token the platform knows; 403: a token, but not an app's (a person's).
    return (await readPlatformAnswer(response, { what: 'GET /api/apps/me', schema: appsMeSchema, absent: [401, 403] })) ?? null;
  };

  return async (authorization) => {
    const values = authorization.every((value) => typeof value === 'string') ? authorization : [];
    const token = extractBearer(values);
    if (token === undefined) throw new RegistryError('APP_TOKEN_MISSING');
    let app: AppsMe | null;
    try {
      app = await cache.resolve(token, askPlatform(token));
    } catch (error) {
      if (isPlatformError(error)) throw new RegistryError('PLATFORM_UNAVAILABLE', undefined, { cause: error });
      throw error;
    }
    if (app === null) throw new RegistryError('APP_TOKEN_REFUSED');
    if (app.appKey === null) {
      throw new RegistryError('APP_NOT_LINKED', `Client ${app.clientId} is linked to no app; an administrator must link it before its services can register.`);
    }
    return { clientId: app.clientId, appKey: app.appKey, toolPublisher: app.toolPublisher === true, token };
  };
}
