// RFC 8693 token exchange: a client allowed to exchange (the MCP gateway) trades a person's access
// token (subject) and an app's client-credentials token (actor) for a short-lived delegated token:
// sub = the person, act.sub = the app's client id, aud = the platform API only, scope `api`,
// lifetime at most 300 s and never past the subject token, no refresh token.
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC, type ResourceServer } from 'oidc-provider';
import type { AccessTokenClaims } from '../api/credential-check.ts';
import { mintAccessToken } from './mint-access-token.ts';
import type { World } from '../world/world.ts';

export const tokenExchangeGrant = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const accessTokenType = 'urn:ietf:params:oauth:token-type:access_token';
const maxDelegatedLifetimeSeconds = 300;

export interface TokenExchangeOptions {
  readonly world: World;
  readonly platformAudience: string;
  /** Audiences a person's token may carry to be exchanged (the platform API, the MCP server). */
  readonly subjectAudiences: readonly string[];
  readonly verify: (token: string) => Promise<AccessTokenClaims | null>;
  readonly enabled: () => boolean;
  /** Whether the authenticated client may make exchanges (the MCP gateway may). */
  readonly mayExchange: (clientId: string) => boolean;
  readonly resourceServerInfo: () => ResourceServer;
}

const parameters = ['subject_token', 'subject_token_type', 'actor_token', 'actor_token_type', 'requested_token_type', 'audience', 'resource', 'scope'];

export function registerTokenExchange(provider: Provider, options: TokenExchangeOptions): void {
  const { world, platformAudience, subjectAudiences, verify } = options;

  const audiencesOf = (claims: AccessTokenClaims) => (Array.isArray(claims.aud) ? claims.aud : [claims.aud ?? '']);

  provider.registerGrantType(
    tokenExchangeGrant,
    async (ctx: KoaContextWithOIDC) => {
      if (!options.enabled()) throw new errors.UnsupportedGrantType('token exchange is not enabled in this environment');
      const client = ctx.oidc.client;
      if (!client || !options.mayExchange(client.clientId)) {
        throw new errors.UnauthorizedClient('this client is not allowed to exchange tokens');
      }
      const params = ctx.oidc.params as Record<string, string | string[] | undefined>;
      const single = (name: string) => {
        const value = params[name];
        if (Array.isArray(value)) {
          if (value.length > 1) throw new errors.InvalidRequest(`${name} must be given once`);
          return value[0];
        }
        return value;
      };

      for (const name of ['audience', 'resource']) {
        const target = single(name);
        if (target !== undefined && target !== platformAudience) throw new errors.InvalidTarget(`${name} must be the platform API (${platformAudience})`);
      }
      const scope = single('scope');
      if (scope !== undefined && scope.split(' ').some((s) => s !== 'api')) throw new errors.InvalidScope('only the api scope can be requested', scope);
      const requested = single('requested_token_type');
      if (requested !== undefined && requested !== accessTokenType) throw new errors.InvalidRequest('requested_token_type must be an access token');

      // The person.
      const subjectToken = single('subject_token');
      if (!subjectToken) throw new errors.InvalidRequest("missing required parameter 'subject_token'");
      if (single('subject_token_type') !== accessTokenType)
        throw new errors.InvalidRequest('subject_token_type must be urn:ietf:params:oauth:token-type:access_token');
      const subject = await verify(subjectToken);
      if (!subject?.sub || !subject.exp) throw new errors.InvalidRequest('subject_token is invalid or expired');
      if (subject.act !== undefined) throw new errors.InvalidRequest('subject_token is already delegated');
      if (!world.user(subject.sub)) throw new errors.InvalidRequest('subject_token does not belong to a person');
      if (!audiencesOf(subject).some((aud) => subjectAudiences.includes(aud))) throw new errors.InvalidRequest('subject_token is meant for another audience');

      // The app the call is made through.
      const actorToken = single('actor_token');
      if (!actorToken) throw new errors.InvalidRequest("missing required parameter 'actor_token'");
      if (single('actor_token_type') !== accessTokenType)
        throw new errors.InvalidRequest('actor_token_type must be urn:ietf:params:oauth:token-type:access_token');
      const actor = await verify(actorToken);
      if (!actor?.sub || actor.act !== undefined || actor.client_id !== actor.sub) {
        throw new errors.InvalidRequest("actor_token is invalid, expired, or not an app's client-credentials token");
      }
      // The app's own token for the platform API, not one it was given for another resource.
      if (!audiencesOf(actor).includes(platformAudience)) throw new errors.InvalidRequest('actor_token is meant for another audience');
      const app = world.app(actor.sub);
      if (!app) throw new errors.InvalidRequest('actor_token belongs to no app');
      if (app.appKey === null) throw new errors.InvalidRequest(`the actor's client ${app.clientId} is linked to no app`);

      const lifetime = Math.min(maxDelegatedLifetimeSeconds, subject.exp - Math.floor(Date.now() / 1000));
      if (lifetime <= 0) throw new errors.InvalidRequest('subject_token is expired');

      const minted = await mintAccessToken(ctx.oidc.provider, {
        accountId: subject.sub,
        client,
        resource: platformAudience,
        resourceServerInfo: options.resourceServerInfo(),
        expiresInSeconds: lifetime,
        grantType: tokenExchangeGrant,
        extraClaims: { act: { sub: app.clientId } },
      });
      ctx.body = {
        access_token: minted.token,
        issued_token_type: accessTokenType,
        token_type: 'Bearer',
        expires_in: minted.expiresIn,
        scope: 'api',
      };
    },
    parameters,
    ['audience', 'resource'],
  );
}
