// Test helpers shared by the SDK's tests: tokens with a chosen expiry, a controllable clock, a port
// on which nothing listens. No side effects on import (nock's interceptors live in nock-platform.ts),
// so benchmarks and other packages' tests may use these too.
import { createServer as createHttpServer, type RequestListener } from 'node:http';
import { createServer } from 'node:net';
import { UnsecuredJWT } from 'jose';
import { isPlatformError, type PlatformError } from '../src/errors.ts';

/** A JWT-shaped token whose `exp` is `expiresInSeconds` after `nowMs` (no signature: the SDK never verifies). */
export function tokenExpiringIn(expiresInSeconds: number, nowMs: number, sub = 'user-1'): string {
  return new UnsecuredJWT({ sub, jti: crypto.randomUUID() })
    .setIssuedAt(Math.floor(nowMs / 1000))
    .setExpirationTime(Math.floor(nowMs / 1000) + expiresInSeconds)
    .encode();
}

export interface ManualClock {
  (): number;
  advance(ms: number): void;
}

export function manualClock(startMs = Date.UTC(2026, 10, 22, 12)): ManualClock {
  let now = startMs;
  const clock = (() => now) as ManualClock;
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}

/** A loopback port that was just free and is closed again: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => { resolve(); }));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A real HTTP server on a loopback port, for answers nock cannot stage faithfully (stalls). */
export async function listen(handler: RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    },
  };
}

/** Stages the discovery document of an authorization server at `issuer` (nock). */
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
