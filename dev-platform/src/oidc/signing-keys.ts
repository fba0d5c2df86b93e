// The authorization server's signing key, made fresh at each start: the private JWK for
// oidc-provider and the public key set the platform API verifies access tokens with.
import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, exportJWK, generateKeyPair, type JWK } from 'jose';

export interface SigningKeys {
  /** For oidc-provider's `jwks` configuration. */
  readonly privateJwks: { keys: JWK[] };
  /** For verifying tokens in-process. */
  readonly verificationKeys: ReturnType<typeof createLocalJWKSet>;
}

export async function createSigningKeys(): Promise<SigningKeys> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { privateJwks: { keys: [privateJwk] }, verificationKeys: createLocalJWKSet({ keys: [publicJwk] }) };
}
