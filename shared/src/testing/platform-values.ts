// Values tests stage for the platform: tokens with a chosen expiry, a discovery document, and the
// PlatformError a promise (or a settings loader) must end in.
import { UnsecuredJWT } from 'jose';
import { isPlatformError, type PlatformError } from '../errors/platform-error.ts';

/** A JWT-shaped token whose `exp` is `expiresInSeconds` after `nowMs` (unsigned: the SDK never verifies). */
export function tokenExpiringIn(expiresInSeconds: number, nowMs: number, sub = 'user-1'): string {
  return new UnsecuredJWT({ sub, jti: crypto.randomUUID() })
    .setIssuedAt(Math.floor(nowMs / 1000))
    .setExpirationTime(Math.floor(nowMs / 1000) + expiresInSeconds)
    .encode();
}

/** The discovery document of an authorization server at `issuer`. */
export function discoveryDocument(issuer: string): Record<string, unknown> {
  return {
    issuer,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    grant_types_supported: ['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange'],
    token_endpoint_auth_methods_supported: ['client_secret_basic'],
  };
}

/** The PlatformError a promise rejects with; fails the test when it resolves or throws anything else. */
export async function platformFailure(promise: Promise<unknown>): Promise<PlatformError> {
  try {
    await promise;
  } catch (error) {
    if (isPlatformError(error)) return error;
    throw error;
  }
  throw new Error('expected a PlatformError');
}

/** The message of the SETTINGS_INVALID error a settings loader throws; fails the test when it throws nothing or anything else. */
export function settingsFailure(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    if (isPlatformError(error, 'SETTINGS_INVALID')) return error.message;
    throw error;
  }
  throw new Error('expected the settings to be refused');
}
