// Builds the dev platform from its settings and seed: the authorization server and platform API on
// one origin (as on the real platform), and the "other service" on its own.
import { randomBytes } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express } from 'express';
import type Provider from 'oidc-provider';
import type { Clock, Logger } from '@platform/tool-sdk';
import { createRequestLogging } from '@platform/tool-sdk/internal';
import { createAdminRoutes } from './api/admin.routes.ts';
import { createAiService } from './api/ai-service.ts';
import { ApiError, apiErrorHandler } from './api/api-error.ts';
import { createAuthorizationServer } from './oidc/authorization-server.ts';
import { createClientApprovals } from './oidc/client-approvals.ts';
import { createAuthenticator, createTokenVerifier } from './api/credential-check.ts';
import { createDevAppRoutes } from './api/dev-apps.routes.ts';
import { createDevApps } from './world/dev-apps.ts';
import { createDevTokenRoutes } from './oidc/dev-token.routes.ts';
import { createInteractionRoutes, interactionErrorPage } from './oidc/interactions.routes.ts';
import { createJsonBodyParser } from './api/json-body.ts';
import { createMeRoute, createPlatformApiRoutes } from './api/platform-api.routes.ts';
import { requireAuthentication } from './api/require-authentication.ts';
import type { Seed } from './world/seed.ts';
import type { DevPlatformSettings } from './settings.ts';
import { createSigningKeys } from './oidc/signing-keys.ts';
import { World } from './world/world.ts';

export interface DevPlatform {
  /** Issuer, platform API and scripted login. */
  readonly app: Express;
  /** The other platform service (AI embeddings stand-in). */
  readonly aiApp: Express;
  readonly world: World;
  readonly provider: Provider;
  /** Lets go of what the platform holds open besides its servers (the client documents' connections). */
  close(): Promise<void>;
}

export interface DevPlatformOptions {
  readonly settings: DevPlatformSettings;
  readonly seed: Seed;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Certificates trusted for client ID metadata documents besides the system's (a test's own CA). */
  readonly clientDocumentCa?: string;
}

export async function createDevPlatform(options: DevPlatformOptions): Promise<DevPlatform> {
  const { settings, logger } = options;
  // The seed, and the apps registered on an earlier run (PLATFORM_APPS_FILE): AppsFileError when they no longer fit.
  const devApps = createDevApps(options.seed, settings.appsFile);
  const world = new World(devApps.seed);
  const keys = await createSigningKeys();
  const verify = createTokenVerifier({ issuer: settings.issuer, keys });
  const authorizationServer = createAuthorizationServer({
    settings,
    world,
    keys,
    cookieKeys: [randomBytes(32).toString('base64url')],
    verify,
    ...(options.clock && { clock: options.clock }),
    clientDocumentCa: options.clientDocumentCa,
    isDevApp: (clientId) => devApps.isDevApp(clientId),
  });
  const { provider } = authorizationServer;
  provider.on('server_error', (_ctx, error) => {
    logger.error({ err: error }, 'authorization server error');
  });

  const authenticator = createAuthenticator(world, verify, settings.issuer);
  const app = express();
  app.disable('x-powered-by');
  app.use(createRequestLogging(logger));
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(createDevTokenRoutes(authorizationServer, world, settings.accessTokenTtlSeconds));
  app.use(createDevAppRoutes(world, devApps));
  app.use(createInteractionRoutes(provider, world, createClientApprovals()));
  app.use('/interaction', interactionErrorPage);
  // GET /api/me answers a token of any audience the platform issued (the platform API, the MCP
  // server), so resource servers can check their callers and read the audience; every other
  // endpoint takes only tokens issued for the platform API. Delegated tokens are held to the API
  // alone by the authenticator.
  app.get('/api/me', requireAuthentication(authenticator, authorizationServer.resources), createMeRoute(world));
  // The caller first, then the body: without a valid token, a malformed body is still a 401.
  app.use('/api', requireAuthentication(authenticator, [settings.issuer]), createJsonBodyParser({ limit: '64kb' }));
  app.use(createPlatformApiRoutes(world));
  app.use(createAdminRoutes(world));
  app.use('/api', () => {
    throw new ApiError('not_found', 'no such endpoint');
  });
  app.use(['/api', '/dev'], apiErrorHandler);
  // Everything else is the authorization server's (discovery, JWKS, authorize, token, reg).
  app.use(provider.callback());
  // The last word on anything unexpected: never Express's default page with a stack trace.
  app.use(((error: unknown, req, res, _next) => {
    req.log.error({ err: error }, 'unexpected error');
    if (!res.headersSent) res.status(500).json({ error: 'server_error', message: 'Something went wrong on the platform.' });
  }) satisfies ErrorRequestHandler);

  const aiApp = createAiService({ authenticator, audience: settings.issuer, logger: logger.child({ service: 'ai' }) });
  return { app, aiApp, world, provider, close: () => authorizationServer.clientDocuments.close() };
}
