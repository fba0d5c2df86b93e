// POST /dev/token: scripted login for demos and tests, so that no browser is needed. It exists only
// on the dev platform and issues the same JWT a person gets from the authorization-code flow; with
// `expired: true`, one that expired a minute ago, so a test of its refusal need not wait for it.
import { Router } from 'express';
import { z } from 'zod';
import { ApiError, parseBody } from '../api/api-error.ts';
import { devLoginClientId, type AuthorizationServer } from './authorization-server.ts';
import { plainText } from '../api/input-rules.ts';
import { createJsonBodyParser } from '../api/json-body.ts';
import type { World } from '../world/world.ts';
import { mintAccessToken } from './mint-access-token.ts';

export function createDevTokenRoutes(authorizationServer: AuthorizationServer, world: World, defaultLifetimeSeconds: number): Router {
  const router = Router();
  const { provider, resources } = authorizationServer;
  const body = z.strictObject({
    username: plainText,
    expiresIn: z.number().int().min(1).max(86_400).optional(),
    resource: z.string().optional(),
    expired: z.literal(true).optional(),
  });

  router.post('/dev/token', ...createJsonBodyParser({ limit: '8kb' }), async (req, res) => {
    const request = parseBody(body, req);
    const user = world.userByUsername(request.username);
    // The name given is not repeated: it is the caller's input, shown back in a message.
    if (!user) throw new ApiError('not_found', 'username: no such user');
    const resource = request.resource ?? resources[0] ?? '';
    if (!resources.includes(resource)) throw new ApiError('invalid_request', `resource: must be one of ${resources.join(', ')}`);
    const client = await provider.Client.find(devLoginClientId);
    if (!client) throw new Error('the dev login client is missing');
    const lifetime = request.expiresIn ?? defaultLifetimeSeconds;
    const minted = await mintAccessToken(provider, {
      accountId: user.id,
      client,
      resource,
      resourceServerInfo: authorizationServer.resourceServerInfo(resource),
      expiresInSeconds: lifetime,
      grantType: 'dev_login',
      ...(request.expired && { issuedAt: Math.floor(Date.now() / 1000) - lifetime - 60 }),
    });
    res.json({ access_token: minted.token, token_type: 'Bearer', expires_in: minted.expiresIn, scope: 'api' });
  });
  return router;
}
