// The platform API reads a tool may make: who am I, my companies, legal documents, profile,
// devices. Every answer is computed from the world on this request, so changes show at once.
import { Router } from 'express';
import { meView, may, mayReadProfile, visibleCompanies } from '../world/access.ts';
import { ApiError, idParam } from './api-error.ts';
import { personOf, principalOf, tokenAudienceOf } from './require-authentication.ts';
import type { Company, World } from '../world/world.ts';

const companyJson = (company: Company) => ({ id: company.id, name: company.name, parentId: company.parentId });

/**
 * GET /api/me: who the token stands for, the audiences it was issued for, and (delegated) the app.
 * It is the one endpoint that answers a token of any audience the platform issued, so that a
 * resource server (the MCP server) can check its callers; mount it behind a guard that says so.
 */
export function createMeRoute(world: World): Router {
  const router = Router();
  router.get('/api/me', (_req, res) => {
    res.json(meView(world, personOf(res), tokenAudienceOf(res)));
  });
  return router;
}

/** The rest of the platform API's reads; a token issued for another audience never reaches them. */
export function createPlatformApiRoutes(world: World): Router {
  const router = Router();

  router.get('/api/apps/me', (_req, res) => {
    const principal = principalOf(res);
    if (principal.kind !== 'app') throw new ApiError('forbidden', 'GET /api/apps/me takes an app token (client credentials).');
    const { clientId, appKey, name, toolPublisher } = principal.app;
    // toolPublisher: the platform's word on whether the app may register tool services at a gateway.
    res.json({ clientId, appKey, name, toolPublisher });
  });

  router.get('/api/companies', (_req, res) => {
    res.json(visibleCompanies(world, principalOf(res)).map(companyJson));
  });

  router.get('/api/companies/:companyId', (req, res) => {
    const companyId = idParam(req.params.companyId, 'companyId');
    const company = visibleCompanies(world, principalOf(res)).find((c) => c.id === companyId);
    if (!company) throw new ApiError('not_found', `company ${companyId} not found`);
    res.json(companyJson(company));
  });

  router.get('/api/me/legal-documents', (_req, res) => {
    const roots = visibleCompanies(world, personOf(res)).filter((c) => c.parentId === null);
    res.json(roots.flatMap((company) => world.legalDocumentsOf(company.id)));
  });

  router.get('/api/me/profile', (_req, res) => {
    const principal = personOf(res);
    const { id, username, email } = principal.user;
    // Without consent to iam:profile:view the app sees the person's id only.
    res.json(mayReadProfile(world, principal) ? { id, username, email } : { id });
  });

  router.get('/api/devices/:deviceId', (req, res) => {
    const deviceId = idParam(req.params.deviceId, 'deviceId');
    const device = world.device(deviceId);
    // A device the caller may not view is as good as absent: its company is not revealed.
    if (!device || !may(world, principalOf(res), 'device-overview:view', device.companyId)) {
      throw new ApiError('not_found', `device ${deviceId} not found`);
    }
    res.json(device);
  });

  router.get('/api/companies/:companyId/devices', (req, res) => {
    const companyId = idParam(req.params.companyId, 'companyId');
    const principal = principalOf(res);
    if (!visibleCompanies(world, principal).some((c) => c.id === companyId)) throw new ApiError('not_found', `company ${companyId} not found`);
    if (!may(world, principal, 'device-overview:view', companyId)) throw new ApiError('forbidden', `device-overview:view is needed at company ${companyId}`);
    res.json(world.devicesOf(companyId));
  });

  return router;
}
