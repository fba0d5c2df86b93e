// Mints a JWT access token through oidc-provider's own AccessToken model (the same signing key,
// format and claims as tokens the endpoints issue), for the exchange grant and scripted login.
import type Provider from 'oidc-provider';
import type { ResourceServer } from 'oidc-provider';

type Client = InstanceType<Provider['Client']>;
type AccessTokenInit = ConstructorParameters<Provider['AccessToken']>[0];

export interface MintOptions {
  readonly accountId: string;
  readonly client: Client;
  readonly resource: string;
  readonly resourceServerInfo: ResourceServer;
  readonly expiresInSeconds: number;
  /** When the token says it was issued, in seconds since the epoch; default now. Scripted login backdates it for a token already expired. */
  readonly issuedAt?: number;
  /** How the token came to be (stored on the model, not written into the JWT). */
  readonly grantType: string;
  /** Claims added to the JWT, such as `act`. */
  readonly extraClaims?: Record<string, unknown>;
}

export async function mintAccessToken(provider: Provider, options: MintOptions): Promise<{ token: string; expiresIn: number }> {
  const init = {
    accountId: options.accountId,
    client: options.client,
    gty: options.grantType,
    scope: 'api',
    expiresIn: options.expiresInSeconds,
    resourceServer: new provider.ResourceServer(options.resource, options.resourceServerInfo),
    extra: options.extraClaims,
    ...(options.issuedAt !== undefined && { iat: options.issuedAt, exp: options.issuedAt + options.expiresInSeconds }),
  };
  // @types/oidc-provider marks grantId as required; the runtime needs none for a JWT access token,
  // which is not stored and is never looked up by grant.
  const accessToken = new provider.AccessToken(init as unknown as AccessTokenInit);
  const token = await accessToken.save();
  if (options.issuedAt === undefined) return { token, expiresIn: accessToken.expiration };
  return { token, expiresIn: Math.max(0, options.issuedAt + options.expiresInSeconds - Math.floor(Date.now() / 1000)) };
}
