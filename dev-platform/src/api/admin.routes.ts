// Administration calls: roles, role assignments, consent, app definitions, availability,
// installation, identity providers, publishing legal documents. A person may make them where their
// own permissions allow; what every company shares (a platform role, an app's definition and
// availability) only a platform administrator, who holds the right at every company, changes. A
// delegated token is always refused with 403, whatever person and app hold.
import { Router, type Response } from 'express';
import { z } from 'zod';
import { may, type Principal } from '../world/access.ts';
import { ApiError, idParam, parseBody } from './api-error.ts';
import { principalOf } from './require-authentication.ts';
import { plainText, webAddress } from './input-rules.ts';
import type { App, World } from '../world/world.ts';

const permission = z.string().regex(/^[a-z0-9-]+(:[a-z0-9-]+)+$/, 'must look like area:action');

function adminPerson(res: Response): Principal & { kind: 'person' } {
  const principal = principalOf(res);
  if (principal.kind === 'delegated') {
    throw new ApiError('delegation_forbidden', 'Administration calls are refused under delegation.');
  }
  if (principal.kind === 'app') throw new ApiError('not_a_person', 'Administration calls need a person.');
  return principal;
}

/** Why only a platform administrator changes an app: installing it gives a company no control over it. */
const appsArePublishers = "an app's definition and availability are its publisher's";

export function createAdminRoutes(world: World): Router {
  const router = Router();

  /** The person must hold `permission` at `companyId`. */
  const requireAt = (person: Principal, permission: string, companyId: number) => {
    if (!world.company(companyId)) throw new ApiError('not_found', `company ${companyId} not found`);
    if (!may(world, person, permission, companyId)) throw new ApiError('forbidden', `${permission} is needed at company ${companyId}`);
  };
  /** The person must hold `permission` at some company of their own. */
  const requireSomewhere = (person: Principal & { kind: 'person' }, permission: string) => {
    if (!person.user.memberships.some((m) => may(world, person, permission, m.companyId))) {
      throw new ApiError('forbidden', `${permission} is needed`);
    }
  };
  /**
   * The person must be a platform administrator for `permission`: hold it at every company of the
   * platform. What every company shares (a platform role, an app's definition and availability) is
   * changed by such a person only, so that no company's administrator changes what another's may do.
   * The message names no company: a tenant learns nothing of the others.
   */
  const requireEverywhere = (person: Principal, permission: string, why: string) => {
    if (!world.companies.every((company) => may(world, person, permission, company.id))) {
      throw new ApiError('forbidden', `${permission} is needed at every company of the platform: ${why}`);
    }
  };
  const appOf = (clientId: string | undefined): App => {
    const app = clientId ? world.app(clientId) : undefined;
    if (!app) throw new ApiError('not_found', `app ${clientId ?? ''} not found`);
    return app;
  };

  router.get('/api/roles', (_req, res) => {
    const person = adminPerson(res);
    res.json(world.rolesAt(person.user.memberships.map((m) => m.companyId)));
  });

  /**
   * `{ permissions }` changes a platform role (a platform administrator's call);
   * `{ companyId, permissions }` creates or changes that company's role (its role managers' call).
   */
  router.put('/api/roles/:name', (req, res) => {
    const person = adminPerson(res);
    requireSomewhere(person, 'iam:roles:manage');
    const name = z
      .string()
      .regex(/^[a-z0-9-]+$/)
      .safeParse(req.params.name);
    if (!name.success) throw new ApiError('invalid_request', 'name must be lower-case letters, digits and dashes');
    const body = parseBody(z.strictObject({ companyId: z.number().int().positive().optional(), permissions: z.array(permission) }), req);
    const platformRole = world.platformRole(name.data);
    if (body.companyId === undefined) {
      if (!platformRole) {
        throw new ApiError('invalid_request', `companyId: ${name.data} is no platform role; a new role belongs to the company companyId names`);
      }
      requireEverywhere(person, 'iam:roles:manage', `${name.data} is a platform role`);
      res.json(world.putPlatformRole(name.data, body.permissions));
      return;
    }
    requireAt(person, 'iam:roles:manage', body.companyId);
    if (platformRole) {
      throw new ApiError('invalid_request', `name: ${name.data} is a platform role; choose another name for a role of company ${body.companyId}`);
    }
    res.json(world.putCompanyRole(body.companyId, name.data, body.permissions));
  });

  router.put('/api/companies/:companyId/role-assignments/:userId', (req, res) => {
    const person = adminPerson(res);
    const companyId = idParam(req.params.companyId, 'companyId');
    requireAt(person, 'iam:roles:assign', companyId);
    // An unknown user and a non-member get the same answer, so that user ids cannot be probed.
    const user = world.user(req.params.userId);
    const membership = user && world.membership(user, companyId);
    if (!membership) throw new ApiError('not_found', `user ${req.params.userId} is not a member of company ${companyId}`);
    const body = parseBody(z.strictObject({ roles: z.array(z.string()) }), req);
    // Unknown and another company's role alike: a company's roles are its own business.
    const unavailable = body.roles.find((role) => !world.roleAt(role, companyId));
    if (unavailable) throw new ApiError('invalid_request', `roles: role ${unavailable} is not available at company ${companyId}`);
    res.json(world.assignRoles(membership, body.roles));
  });

  router.put('/api/companies/:companyId/apps/:clientId/consent', (req, res) => {
    const person = adminPerson(res);
    const companyId = idParam(req.params.companyId, 'companyId');
    requireAt(person, 'apps:consent', companyId);
    const app = appOf(req.params.clientId);
    const installation = world.installation(app, companyId);
    if (!installation) throw new ApiError('not_found', `app ${app.clientId} is not installed at company ${companyId}`);
    const body = parseBody(z.strictObject({ permissions: z.array(permission) }), req);
    const notRequested = body.permissions.find((p) => !app.requestedClientPermissions.includes(p));
    if (notRequested) throw new ApiError('invalid_request', `permissions: ${notRequested} is not requested by the app`);
    world.setConsent(installation, body.permissions);
    res.json(installation);
  });

  router.put('/api/companies/:companyId/apps/:clientId/installation', (req, res) => {
    const person = adminPerson(res);
    const companyId = idParam(req.params.companyId, 'companyId');
    requireAt(person, 'apps:install', companyId);
    const app = appOf(req.params.clientId);
    if (app.appKey === null) throw new ApiError('invalid_request', `client ${app.clientId} is linked to no app`);
    if (!app.available) throw new ApiError('invalid_request', `app ${app.clientId} is not available`);
    res.json(world.install(app, companyId));
  });

  router.delete('/api/companies/:companyId/apps/:clientId/installation', (req, res) => {
    const person = adminPerson(res);
    const companyId = idParam(req.params.companyId, 'companyId');
    requireAt(person, 'apps:install', companyId);
    if (!world.uninstall(appOf(req.params.clientId), companyId)) throw new ApiError('not_found', 'the app is not installed there');
    res.status(204).end();
  });

  router.put('/api/apps/:clientId/definition', (req, res) => {
    requireEverywhere(adminPerson(res), 'apps:manage', appsArePublishers);
    const app = appOf(req.params.clientId);
    const body = parseBody(z.strictObject({ name: plainText, permissions: z.array(permission), requestedClientPermissions: z.array(permission) }), req);
    const outside = body.permissions.find((p) => app.appKey === null || !p.startsWith(`${app.appKey}:`));
    if (outside) throw new ApiError('invalid_request', `permissions: ${outside} is outside the app's namespace`);
    world.defineApp(app, body);
    res.json({
      clientId: app.clientId,
      appKey: app.appKey,
      name: app.name,
      permissions: app.permissions,
      requestedClientPermissions: app.requestedClientPermissions,
    });
  });

  router.put('/api/apps/:clientId/availability', (req, res) => {
    requireEverywhere(adminPerson(res), 'apps:manage', appsArePublishers);
    const app = appOf(req.params.clientId);
    const body = parseBody(z.strictObject({ available: z.boolean() }), req);
    world.setAvailability(app, body.available);
    res.json({ clientId: app.clientId, available: app.available });
  });

  router.get('/api/companies/:companyId/identity-providers', (req, res) => {
    const person = adminPerson(res);
    const companyId = idParam(req.params.companyId, 'companyId');
    requireAt(person, 'iam:idp:manage', companyId);
    res.json(world.identityProvidersOf(companyId));
  });

  router.put('/api/companies/:companyId/identity-providers', (req, res) => {
    const person = adminPerson(res);
    const companyId = idParam(req.params.companyId, 'companyId');
    requireAt(person, 'iam:idp:manage', companyId);
    const body = parseBody(z.strictObject({ providers: z.array(z.strictObject({ id: plainText, type: z.enum(['oidc', 'saml']), issuer: webAddress })) }), req);
    world.setIdentityProviders(companyId, body.providers);
    res.json(world.identityProvidersOf(companyId));
  });

  router.post('/api/companies/:companyId/legal-documents', (req, res) => {
    const person = adminPerson(res);
    const companyId = idParam(req.params.companyId, 'companyId');
    requireAt(person, 'legal:publish', companyId);
    if (world.company(companyId)?.parentId !== null) throw new ApiError('invalid_request', 'companyId: legal documents belong to root companies');
    const body = parseBody(z.strictObject({ id: plainText, title: plainText, version: plainText, url: webAddress }), req);
    const document = { ...body, companyId };
    world.publishLegalDocument(document);
    res.status(201).json(document);
  });

  return router;
}
