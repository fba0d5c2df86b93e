// The OAuth 2.1 / OpenID authorization server, on oidc-provider: discovery (also at the RFC 8414
// path), JWKS, authorization code with PKCE S256, MCP clients identified by a client ID metadata
// document or, deprecated, by dynamic client registration, client_credentials with scope `api` for
// apps, RFC 8693 token exchange. Every access token is a signed JWT (`typ: at+jwt`) bound to a
// resource; no refresh token is ever issued.
import Provider, { errors, type Configuration, type KoaContextWithOIDC, type ResourceServer } from 'oidc-provider';
import type { Clock } from '@platform/tool-sdk';
import { createAuthorizationEndpointGuard, responseModes } from './authorization-endpoint-guard.ts';
import { ClientDocumentError } from './clients/client-document-error.ts';
import { createClientDocuments, type ClientDocuments } from './clients/client-documents.ts';
import type { AccessTokenClaims } from '../api/credential-check.ts';
import { pageHeaders } from './page-security.ts';
import type { DevPlatformSettings } from '../settings.ts';
import { createProviderStore } from './provider-store.ts';
import { createRegistrationGuard } from './clients/registration-guard.ts';
import { createRegistrationRate } from './clients/registration-rate.ts';
import { redirectUriProblem } from './clients/redirect-uri-rules.ts';
import type { SigningKeys } from './signing-keys.ts';
import { registerTokenExchange, tokenExchangeGrant } from './token-exchange.ts';
import type { World } from '../world/world.ts';

/** What a person is told when a client unknown to this platform asks them to sign in. */
const unknownClientAdvice =
  'This platform does not know the application that sent you here: it registered with this platform before its data was reset, or with another one. ' +
  'Make the application forget its registration and connect again, and it registers anew. For mcp-remote: remove ~/.mcp-auth ' +
  '(or the folder MCP_REMOTE_CONFIG_DIR names), then start mcp-remote again.';

/** The internal client that scripted logins (POST /dev/token) are issued to. */
export const devLoginClientId = 'platform-dev-login';

export interface AuthorizationServerOptions {
  readonly settings: DevPlatformSettings;
  readonly world: World;
  readonly keys: SigningKeys;
  readonly cookieKeys: readonly string[];
  readonly verify: (token: string) => Promise<AccessTokenClaims | null>;
  /** What the client store's idleness, the registration rate and documents' lifetimes are judged by; default the system's. */
  readonly clock?: Clock;
  /** Certificates trusted for client ID metadata documents besides the system's (a test's own CA). */
  readonly clientDocumentCa?: string | undefined;
  /**
   * Whether an app was registered while the platform ran, now or on an earlier run (PUT /dev/apps):
   * such an app is no static client but looked up in the world each time, so a new secret takes at once.
   */
  readonly isDevApp?: (clientId: string) => boolean;
}

/** How long a grant lives: a client that got one is in use at least this long. */
const grantTtlSeconds = 8 * 3600;

export interface AuthorizationServer {
  readonly provider: Provider;
  /** The resources a token may be issued for: the platform API first, then the MCP server(s). */
  readonly resources: readonly string[];
  resourceServerInfo(resource: string): ResourceServer;
  /** Clients identified by a client ID metadata document. */
  readonly clientDocuments: ClientDocuments;
}

export function createAuthorizationServer(options: AuthorizationServerOptions): AuthorizationServer {
  const { settings, world, keys } = options;
  const platformAudience = settings.issuer;
  const resources = [platformAudience, ...settings.extraResources];

  const resourceServerInfo = (resource: string): ResourceServer => ({
    scope: 'api',
    audience: resource,
    accessTokenFormat: 'jwt',
    jwt: { sign: { alg: 'RS256' } },
  });

  const confidential = (clientId: string, clientSecret: string) => ({
    client_id: clientId,
    client_secret: clientSecret,
    token_endpoint_auth_method: 'client_secret_basic' as const,
    // Every confidential client lists the exchange grant so that the grant itself can answer a
    // client not allowed to exchange with RFC 8693's unauthorized_client (oidc-provider would
    // otherwise say invalid_request before the grant runs).
    grant_types: ['client_credentials', tokenExchangeGrant],
    response_types: [],
    redirect_uris: [],
  });

  const clientDocuments = createClientDocuments({
    allowLoopback: settings.allowLoopbackClientIds,
    ...(options.clock && { clock: options.clock }),
    ca: options.clientDocumentCa,
  });
  const store = createProviderStore({
    clientsFile: settings.clientsFile,
    maxClients: settings.maxClients,
    evictUnusedAfterMs: settings.clientEvictUnusedSeconds * 1000,
    // A client_id that is a URL is its document's, never a registration's: answered from the
    // document, or refused saying what is wrong with it (invalid_client, never a server error).
    resolveClient: async (id) => {
      // An app registered while the platform runs (PUT /dev/apps): a confidential client, as the
      // seed's are. (The seed's own are static clients, found before the store is asked.)
      const app = world.app(id);
      if (app) return confidential(app.clientId, app.clientSecret);
      if (!clientDocuments.handles(id)) return undefined;
      try {
        return await clientDocuments.resolve(id);
      } catch (error) {
        if (error instanceof ClientDocumentError) throw new errors.InvalidClient(`client_id metadata document: ${error.message}`);
        throw error;
      }
    },
    ...(options.clock && { clock: options.clock }),
  });
  const registrationRate = createRegistrationRate(settings.registrationsPerMinute, options.clock);

  const configuration: Configuration = {
    adapter: store,
    // Every client's redirect URIs, registered or seeded, are held to the platform's rules on top of
    // oidc-provider's own (which would take http to any host for a web client); and every client to
    // the response modes whose answer is a redirect, never a page of its own.
    extraClientMetadata: {
      properties: ['redirect_uris', 'response_modes'],
      validator: (_ctx, key, value, metadata) => {
        if (key === 'response_modes') {
          const asked = Array.isArray(value) ? (value as unknown[]) : [...responseModes];
          const refused = asked.find((mode) => typeof mode !== 'string' || !responseModes.includes(mode));
          if (refused !== undefined)
            throw new errors.InvalidClientMetadata(`response_modes: ${JSON.stringify(refused)} is not offered (only ${responseModes.join(' and ')})`);
          metadata.response_modes = asked as string[];
          return;
        }
        if (key !== 'redirect_uris' || !Array.isArray(value)) return;
        for (const uri of value as unknown[]) {
          const problem = redirectUriProblem(uri);
          if (problem) throw new errors.InvalidClientMetadata(`redirect_uris ${JSON.stringify(String(uri).slice(0, 200))} ${problem}`);
        }
      },
    },
    // MCP clients find here that they may identify themselves by a document (2026-07-28).
    discovery: { client_id_metadata_document_supported: true },
    jwks: keys.privateJwks,
    cookies: { keys: [...options.cookieKeys] },
    clients: [
      ...world.apps.filter((app) => !options.isDevApp?.(app.clientId)).map((app) => confidential(app.clientId, app.clientSecret)),
      ...world.clients.map((client) => confidential(client.clientId, client.clientSecret)),
      {
        client_id: devLoginClientId,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: ['http://127.0.0.1/dev-login'],
      },
    ],
    clientDefaults: { grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' },
    responseTypes: ['code'],
    scopes: ['openid', 'profile', 'email', 'api'],
    claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email'] },
    pkce: { required: () => true },
    // Registering `refresh_token` stays possible (MCP clients ask for it), but none is ever issued.
    issueRefreshToken: () => false,
    extraTokenClaims: (_ctx, token) => (token as unknown as { extra?: Record<string, unknown> }).extra,
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      registration: { enabled: true },
      introspection: { enabled: false },
      revocation: { enabled: false },
      dPoP: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf ?? platformAudience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (!resources.includes(resource)) throw new errors.InvalidTarget(`unknown resource ${resource}`);
          return resourceServerInfo(resource);
        },
      },
    },
    ttl: {
      AccessToken: () => settings.accessTokenTtlSeconds,
      ClientCredentials: () => settings.clientCredentialsTtlSeconds,
      Interaction: 600,
      Session: 8 * 3600,
      Grant: grantTtlSeconds,
      AuthorizationCode: 60,
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => {
      const user = world.user(sub);
      if (!user) return undefined;
      return { accountId: user.id, claims: () => ({ sub: user.id, preferred_username: user.username, email: user.email }) };
    },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.set(pageHeaders());
      // An unknown client at sign-in is most often an MCP client holding a registration from before
      // the platform's data was reset: say what to do, for the person looking at the page.
      const advice = out.error === 'invalid_client' && out.error_description === 'client is invalid' ? `<p>${escapeHtml(unknownClientAdvice)}</p>` : '';
      ctx.body = `<!doctype html><meta charset="utf-8"><title>Sign-in error</title><h1>${escapeHtml(out.error)}</h1><p>${escapeHtml(out.error_description ?? '')}</p>${advice}`;
    },
  };

  const provider = new Provider(settings.issuer, configuration);
  provider.use(createRegistrationGuard({ rate: registrationRate, roomForClient: () => store.roomForClient() }));
  provider.use(createAuthorizationEndpointGuard({ defaultScope: 'api' }));
  // Only a sign-in or a token is use of a registered client: a full store never drops a client
  // used within PLATFORM_CLIENT_EVICT_UNUSED_SECONDS, nor while its grant or last token lives.
  const heldForMs = Math.max(grantTtlSeconds, settings.accessTokenTtlSeconds) * 1000;
  const now = options.clock ?? Date.now;
  const used = (ctx: KoaContextWithOIDC) => {
    const clientId = ctx.oidc.client?.clientId;
    if (clientId !== undefined) store.markClientUsed(clientId, now() + heldForMs);
  };
  provider.on('authorization.success', used);
  provider.on('grant.success', used);
  registerTokenExchange(provider, {
    world,
    platformAudience,
    subjectAudiences: resources,
    verify: options.verify,
    enabled: () => settings.tokenExchangeEnabled,
    mayExchange: (clientId) => world.client(clientId)?.tokenExchange === true,
    resourceServerInfo: () => resourceServerInfo(platformAudience),
  });
  return { provider, resources, resourceServerInfo, clientDocuments };
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export type { KoaContextWithOIDC };
