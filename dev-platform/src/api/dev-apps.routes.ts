// PUT /dev/apps/:clientId: registers an app of its own for a new tool service on the running dev
// platform (`npm run tool-env` calls it), as a platform operator would set one up: its key (the
// client id), a new client secret (answered once, never logged), the permissions of its namespace,
// its installations with their consent, and the tool-publisher mark. Like POST /dev/token it exists
// only on the dev platform. The seed's apps and clients are never replaced; an app registered here
// is, with a new secret, when it is registered again.
import { Router } from 'express';
import { z } from 'zod';
import { ApiError, parseBody } from './api-error.ts';
import type { DevApps } from '../world/dev-apps.ts';
import { plainText } from './input-rules.ts';
import { createJsonBodyParser } from './json-body.ts';
import type { World } from '../world/world.ts';

const permission = z.string().regex(/^[a-z0-9-]+(:[a-z0-9-]+)+$/, 'must look like area:action, such as device-overview:view');
/** An app key, and so the client id: what the gateway prefixes the app's tool names with. */
const appKey = /^[a-z][a-z0-9-]{0,62}$/;

const definitionSchema = z.strictObject({
  name: plainText.max(255).optional(),
  permissions: z.array(permission).max(64).default([]),
  requestedClientPermissions: z.array(permission).max(64).optional(),
  installations: z.array(z.strictObject({ companyId: z.number().int().positive(), consentedPermissions: z.array(permission).max(64) })).max(256),
  toolPublisher: z.boolean(),
});

/** What is wrong with the definition against the world, each problem naming its field. */
function problemsOf(world: World, clientId: string, body: z.output<typeof definitionSchema>, requested: readonly string[]): string[] {
  const problems: string[] = [];
  body.permissions.forEach((p, i) => {
    if (!p.startsWith(`${clientId}:`)) problems.push(`permissions[${i}]: ${p} is outside the app's own namespace ${clientId}:`);
  });
  requested.forEach((p, i) => {
    if (p.startsWith(`${clientId}:`)) problems.push(`requestedClientPermissions[${i}]: ${p} is in the app's own namespace and needs no consent`);
  });
  const seen = new Set<number>();
  body.installations.forEach((installation, i) => {
    if (!world.company(installation.companyId)) problems.push(`installations[${i}].companyId: no company ${installation.companyId}`);
    if (seen.has(installation.companyId)) problems.push(`installations[${i}].companyId: company ${installation.companyId} appears twice`);
    seen.add(installation.companyId);
    installation.consentedPermissions.forEach((p, j) => {
      if (!requested.includes(p)) problems.push(`installations[${i}].consentedPermissions[${j}]: ${p} is not in requestedClientPermissions`);
    });
  });
  return problems;
}

export function createDevAppRoutes(world: World, devApps: DevApps): Router {
  const router = Router();
  router.put('/dev/apps/:clientId', ...createJsonBodyParser({ limit: '64kb' }), (req, res) => {
    const clientId = typeof req.params.clientId === 'string' ? req.params.clientId : '';
    if (!appKey.test(clientId))
      throw new ApiError('invalid_request', 'clientId: must be 1 to 63 lower-case letters, digits and dashes, starting with a letter');
    if ((world.app(clientId) || world.client(clientId)) && !devApps.isDevApp(clientId)) {
      throw new ApiError('conflict', `clientId: ${clientId} is an app or client of the seed; choose another name for a new app`);
    }
    const body = parseBody(definitionSchema, req);
    // Without a list of its own, the app requests what it asks consent for.
    const requested = body.requestedClientPermissions ?? [...new Set(body.installations.flatMap((installation) => installation.consentedPermissions))];
    const problems = problemsOf(world, clientId, body, requested);
    if (problems.length > 0) throw new ApiError('invalid_request', problems.slice(0, 5).join('; '));
    const { app, replaced } = devApps.register({
      clientId,
      name: body.name ?? clientId,
      permissions: body.permissions,
      requestedClientPermissions: requested,
      installations: body.installations,
      toolPublisher: body.toolPublisher,
    });
    world.putApp(app);
    res.set('cache-control', 'no-store');
    res.status(replaced ? 200 : 201).json(app);
  });
  return router;
}
