// The credential check: a person, an app and an ApiToken told apart, a delegated token held to the platform API, other audiences refused.
import { importJWK, SignJWT, type JWK } from 'jose';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { devSecrets } from '../../test/dev-env.ts';
import { createAuthenticator, createTokenVerifier, type Authenticator } from './credential-check.ts';
import { loadSeedFile } from '../world/seed.ts';
import { createSigningKeys, type SigningKeys } from '../oidc/signing-keys.ts';
import { World } from '../world/world.ts';

const issuer = 'http://127.0.0.1:4000';
const mcp = 'http://127.0.0.1:3000/mcp';
let keys: SigningKeys;
let authenticator: Authenticator;

async function sign(claims: Record<string, unknown>, audience: string | string[], typ = 'at+jwt'): Promise<string> {
  const jwk = keys.privateJwks.keys[0] as JWK;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', typ, kid: jwk.kid ?? '' })
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(await importJWK(jwk, 'RS256'));
}

beforeAll(async () => {
  keys = await createSigningKeys();
  const world = new World(loadSeedFile(resolve(import.meta.dirname, '../../seed.json'), devSecrets));
  authenticator = createAuthenticator(world, createTokenVerifier({ issuer, keys }), issuer);
});

describe('createAuthenticator', () => {
  it('holds a delegated token to the platform API audience', async () => {
    const delegated = { sub: 'u-oscar', client_id: 'mcp-gateway', act: { sub: 'webhook-tools' } };
    expect(await authenticator.authenticate(`Bearer ${await sign(delegated, issuer)}`, [issuer, mcp])).toMatchObject({
      ok: true,
      principal: { kind: 'delegated' },
    });
    expect(await authenticator.authenticate(`Bearer ${await sign(delegated, mcp)}`, [issuer, mcp])).toEqual({
      ok: false,
      reason: 'a delegated token is valid on the platform API only',
    });
    expect((await authenticator.authenticate(`Bearer ${await sign(delegated, [issuer, mcp])}`, [issuer, mcp])).ok).toBe(false);
  });

  it('refuses a delegated token whose app is linked to no app', async () => {
    const token = await sign({ sub: 'u-oscar', client_id: 'mcp-gateway', act: { sub: 'legacy-sync' } }, issuer);
    expect((await authenticator.authenticate(`Bearer ${token}`, [issuer])).ok).toBe(false);
  });

  it('refuses a token of another audience and a JWT that is not an access token', async () => {
    expect((await authenticator.authenticate(`Bearer ${await sign({ sub: 'u-oscar' }, 'https://other.example')}`, [issuer])).ok).toBe(false);
    expect((await authenticator.authenticate(`Bearer ${await sign({ sub: 'u-oscar' }, issuer, 'JWT')}`, [issuer])).ok).toBe(false);
  });

  it('tells a person, an app and an ApiToken apart', async () => {
    expect(await authenticator.authenticate(`Bearer ${await sign({ sub: 'u-vera', client_id: 'x' }, issuer)}`, [issuer])).toMatchObject({
      principal: { kind: 'person' },
    });
    expect(await authenticator.authenticate(`bearer ${await sign({ sub: 'webhook-tools', client_id: 'webhook-tools' }, issuer)}`, [issuer])).toMatchObject({
      principal: { kind: 'app' },
    });
    expect(await authenticator.authenticate(`ApiToken ${devSecrets.DEV_API_TOKEN_OSCAR}`, [issuer])).toMatchObject({
      principal: { kind: 'person', user: { id: 'u-oscar' } },
    });
    expect((await authenticator.authenticate('Basic abc', [issuer])).ok).toBe(false);
    expect((await authenticator.authenticate(undefined, [issuer])).ok).toBe(false);
  });
});
