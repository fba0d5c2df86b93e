// Turns an Authorization header into a principal: a person (own token or ApiToken), a delegated
// call (a token with `act`), or an app (client credentials). Access tokens are JWTs this platform
// signed (`typ: at+jwt`); anything else is refused.
import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { CachedTokenResolver, parseCredential } from '@platform/tool-sdk/internal';
import type { Principal } from '../world/access.ts';
import type { SigningKeys } from '../oidc/signing-keys.ts';
import type { World } from '../world/world.ts';

export interface AccessTokenClaims extends JWTPayload {
  readonly client_id?: string;
  readonly scope?: string;
  readonly act?: { readonly sub?: string };
}

export interface TokenVerifierOptions {
  readonly issuer: string;
  readonly keys: SigningKeys;
}

/**
 * Verifies an access token this platform issued; null when it is not one (bad signature, expired,
 * wrong type). A verified token's claims cannot change, so they are kept until the token expires
 * (SHA-256 keyed, bounded): jose verifies through WebCrypto, ~0.2 ms a token on this machine.
 * Permissions are never cached: they are computed from the world on every request.
 */
export function createTokenVerifier(options: TokenVerifierOptions): (token: string) => Promise<AccessTokenClaims | null> {
  const verified = new CachedTokenResolver<AccessTokenClaims>({ scope: options.issuer, ttlSeconds: 3600, maxEntries: 10_000 });
  const verify = async (token: string): Promise<AccessTokenClaims | null> => {
    try {
      const { payload } = await jwtVerify<AccessTokenClaims>(token, options.keys.verificationKeys, {
        issuer: options.issuer,
        typ: 'at+jwt',
        algorithms: ['RS256'],
        requiredClaims: ['sub', 'exp', 'aud'],
      });
      return payload;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return null;
      throw error;
    }
  };
  return (token) => verified.resolve(token, () => verify(token));
}

export type Authentication =
  | { readonly ok: true; readonly principal: Principal; readonly audience: readonly string[]; readonly claims?: AccessTokenClaims }
  | { readonly ok: false; readonly reason: string };

export interface Authenticator {
  /** Resolves the `Authorization` header; `audiences` are the token audiences this service accepts. */
  authenticate(authorization: string | undefined, audiences: readonly string[]): Promise<Authentication>;
}

/**
 * `platformAudience` is the platform API's audience: the only one a delegated token may carry.
 */
export function createAuthenticator(world: World, verify: (token: string) => Promise<AccessTokenClaims | null>, platformAudience: string): Authenticator {
  return {
    async authenticate(authorization, audiences) {
      const credential = parseCredential(authorization);
      if (!credential) return { ok: false, reason: 'a Bearer or ApiToken credential is required' };
      const { token } = credential;
      if (credential.scheme === 'ApiToken') {
        const user = world.userByApiToken(token);
        // A user's API token is a platform API credential: its audience is the platform API.
        return user ? { ok: true, principal: { kind: 'person', user }, audience: [platformAudience] } : { ok: false, reason: 'unknown API token' };
      }
      const claims = await verify(token);
      if (!claims?.sub) return { ok: false, reason: 'the token is invalid or expired' };
      const tokenAudiences = (Array.isArray(claims.aud) ? claims.aud : [claims.aud]).filter((aud) => aud !== undefined);
      if (!tokenAudiences.some((aud) => audiences.includes(aud))) {
        return { ok: false, reason: 'the token is not meant for this service' };
      }
      if (claims.act !== undefined) {
        if (tokenAudiences.length !== 1 || tokenAudiences[0] !== platformAudience) {
          return { ok: false, reason: 'a delegated token is valid on the platform API only' };
        }
        const app = claims.act.sub ? world.app(claims.act.sub) : undefined;
        const user = world.user(claims.sub);
        if (!app || app.appKey === null || !user) return { ok: false, reason: 'the delegated token names an unknown person or app' };
        return { ok: true, principal: { kind: 'delegated', user, app }, audience: tokenAudiences, claims };
      }
      const user = world.user(claims.sub);
      if (user) return { ok: true, principal: { kind: 'person', user }, audience: tokenAudiences, claims };
      const app = claims.client_id === claims.sub ? world.app(claims.sub) : undefined;
      if (app) return { ok: true, principal: { kind: 'app', app }, audience: tokenAudiences, claims };
      return { ok: false, reason: 'the token names no person or app of this platform' };
    },
  };
}
