// The twelve endpoints of /v2/webhooks as one table: method, path, rights, body and success shape
// for both the Express router and the OpenAPI document, next to their handlers.
import { randomUUID } from 'node:crypto';
import { type Request, type Response } from 'express';
import { z } from 'zod';
import { callerContextOf, requireRight, type Right } from './caller-guard.ts';
import { fieldsForCreate, fieldsForUpdate, publicConfig } from '../configs/config-writes.ts';
import type { CredentialVault } from '../configs/credential-vault.ts';
import { firstSigningSecrets } from '../configs/signing-secrets.ts';
import type { DeviceDirectory } from './device-directory.ts';
import { notFound, WebhookApiError } from './errors.ts';
import type { WebhookLimits } from '../configs/limits.ts';
import { addRoutes, type RouteHandler, type RouteTarget, type RouteSpec } from './route-spec.ts';
import { sendConfig } from './config-json.ts';
import { configFor } from './config-lookup.ts';
import { ifMatchOf, requireMatch } from './if-match.ts';
import { deviceLink, scope, scopeInput, webhookConfig, webhookConfigInput, webhookConfigUpdate } from './webhooks.schemas.ts';
import { applyScopeRules } from '../configs/scope-rules.ts';
import { pageOf, sendPage } from './list-pages.ts';
import { companyQuery, deviceIdOf, idOf, parse } from './route-inputs.ts';
import type { WebhookStore } from '../store/webhook-store.ts';
import type { DeliveryQueue } from '../queue/delivery-queue.ts';
import { healthyEndpoint, type StoredConfig } from '../store/records.ts';

export interface RouteDependencies {
  readonly store: WebhookStore;
  /** Told when an endpoint is enabled again, so the deliverers of every process take what waited for it. */
  readonly queue?: Pick<DeliveryQueue, 'announce' | 'releaseHeadless'>;
  readonly vault: CredentialVault;
  readonly devices: DeviceDirectory;
  readonly limits: WebhookLimits;
  readonly now?: () => Date;
}

type Handler = RouteHandler<RouteDependencies>;

async function linkedDevice(req: Request, res: Response, deps: RouteDependencies, right: Right): Promise<{ config: StoredConfig; deviceId: number }> {
  const deviceId = deviceIdOf(req);
  const config = await configFor(req, res, deps, right);
  if (!(await deps.store.getLink(config.id, deviceId))) throw notFound(`device ${deviceId} on webhook configuration ${config.id}`);
  return { config, deviceId };
}

const limitReached = (message: string) => new WebhookApiError('LIMIT_REACHED', `${message}, the most it may have`);
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Statuses the handlers answer; the edge's own (401, 5xx, body refusals) are added by the OpenAPI document. */
const standardErrors = [400, 403, 404];

export const routeSpecs = [
  {
    operationId: 'createWebhook',
    method: 'post',
    path: '/v2/webhooks',
    summary: 'Create a webhook configuration for a company',
    right: 'manage',
    query: companyQuery,
    body: webhookConfigInput,
    success: { status: 201, schema: webhookConfig, description: 'The configuration, without credentials' },
    errors: [...standardErrors, 409],
  },
  {
    operationId: 'listWebhooks',
    method: 'get',
    path: '/v2/webhooks',
    summary: "List a company's webhook configurations",
    right: 'view',
    query: companyQuery,
    success: { status: 200, schema: z.array(webhookConfig), description: 'The configurations, without credentials, in creation order' },
    errors: standardErrors,
    paging: 'configsPerCompany',
  },
  {
    operationId: 'getWebhook',
    method: 'get',
    path: '/v2/webhooks/:id',
    summary: 'Get one webhook configuration',
    right: 'view',
    success: { status: 200, schema: webhookConfig, description: 'The configuration, without credentials' },
    errors: standardErrors,
  },
  {
    operationId: 'updateWebhook',
    method: 'put',
    path: '/v2/webhooks/:id',
    summary:
      'Update a configuration: name, url and deliveryMode are required; omitted fields keep their values; authPayload and customHeaders: null keeps, a value replaces, "" clears',
    right: 'manage',
    body: webhookConfigUpdate,
    success: { status: 200, schema: webhookConfig, description: 'The updated configuration' },
    errors: [...standardErrors, 412],
  },
  {
    operationId: 'deleteWebhook',
    method: 'delete',
    path: '/v2/webhooks/:id',
    summary: 'Delete a configuration; delivery stops at once for every linked device',
    right: 'manage',
    success: { status: 200, schema: z.literal(true), description: 'true' },
    errors: [...standardErrors, 412],
  },
  {
    operationId: 'linkDevice',
    method: 'post',
    path: '/v2/webhooks/:id/devices/:deviceId',
    summary: "Link a device of the configuration's company",
    right: 'manage',
    success: { status: 201, schema: deviceLink, description: 'The device link' },
    errors: [...standardErrors, 409],
  },
  {
    operationId: 'listDevices',
    method: 'get',
    path: '/v2/webhooks/:id/devices',
    summary: 'List the linked devices',
    right: 'view',
    success: { status: 200, schema: z.array(deviceLink), description: 'The device links, in creation order' },
    errors: standardErrors,
    paging: 'devicesPerConfig',
  },
  {
    operationId: 'unlinkDevice',
    method: 'delete',
    path: '/v2/webhooks/:id/devices/:deviceId',
    summary: 'Unlink a device (its scopes go with it)',
    right: 'manage',
    success: { status: 204, description: 'Unlinked' },
    errors: standardErrors,
  },
  {
    operationId: 'createScope',
    method: 'post',
    path: '/v2/webhooks/:id/devices/:deviceId/routes',
    summary: 'Add a scope (data route) to a device link',
    right: 'manage',
    body: scopeInput,
    success: { status: 201, schema: scope, description: 'The scope with its generated id' },
    errors: [...standardErrors, 409],
  },
  {
    operationId: 'listScopes',
    method: 'get',
    path: '/v2/webhooks/:id/devices/:deviceId/routes',
    summary: 'List the scopes of a device link',
    right: 'view',
    success: { status: 200, schema: z.array(scope), description: 'The scopes, in creation order' },
    errors: standardErrors,
    paging: 'scopesPerLink',
  },
  {
    operationId: 'updateScope',
    method: 'put',
    path: '/v2/webhooks/:id/devices/:deviceId/routes/:routeId',
    summary: 'Edit a scope (also how enabled is toggled)',
    right: 'manage',
    body: scopeInput,
    success: { status: 200, schema: scope, description: 'The edited scope' },
    errors: [...standardErrors, 409],
  },
  {
    operationId: 'deleteScope',
    method: 'delete',
    path: '/v2/webhooks/:id/devices/:deviceId/routes/:routeId',
    summary: 'Remove a scope',
    right: 'manage',
    success: { status: 204, description: 'Removed' },
    errors: standardErrors,
  },
] as const satisfies readonly RouteSpec[];

type OperationId = (typeof routeSpecs)[number]['operationId'];

const handlers: Record<OperationId, Handler> = {
  async createWebhook(req, res, deps) {
    const { companyId } = parse(companyQuery, req.query, 'query');
    requireRight(callerContextOf(res), companyId, 'manage', `company ${companyId}`);
    const input = parse(webhookConfigInput, req.body, 'body');
    const id = randomUUID();
    const limit = deps.limits.configsPerCompany;
    const config = { id, companyId, ...fieldsForCreate(id, input, deps.vault), signingSecrets: firstSigningSecrets(deps.vault, id), health: healthyEndpoint };
    const created = await deps.store.createConfig(config, limit);
    if (created === 'limit-reached') throw limitReached(`company ${companyId} already has ${plural(limit, 'webhook configuration', 'webhook configurations')}`);
    res.location(`/v2/webhooks/${created.id}`).status(201);
    sendConfig(res, created);
  },
  async listWebhooks(req, res, deps) {
    const { companyId } = parse(companyQuery, req.query, 'query');
    requireRight(callerContextOf(res), companyId, 'view', `company ${companyId}`);
    const list = `configs of company ${companyId}`;
    const page = await deps.store.pageConfigs(companyId, pageOf(req, list, deps.limits.configsPerCompany));
    sendPage(req, res, '/v2/webhooks', list, { items: page.items.map(publicConfig), next: page.next });
  },
  async getWebhook(req, res, deps) {
    sendConfig(res, await configFor(req, res, deps, 'view'));
  },
  async updateWebhook(req, res, deps) {
    const existing = await configFor(req, res, deps, 'manage');
    const input = parse(webhookConfigUpdate, req.body, 'body');
    const ifMatch = ifMatchOf(req);
    // Merged onto the configuration as it is when the update runs, not as it was read above.
    /** Boxed: set by the update, as the configuration is under its lock. */
    const change = { enabled: false, unordered: false };
    const updated = await deps.store.updateConfig(existing.id, (current) => {
      if (ifMatch) requireMatch(ifMatch, current);
      change.enabled = current.status !== 'Active' && input.status === 'Active';
      change.unordered = current.ordering !== 'None' && input.ordering === 'None';
      return fieldsForUpdate(current, input, deps.vault);
    });
    if (!updated) throw notFound(`webhook configuration ${existing.id}`);
    // What waited for the endpoint, or for an earlier delivery of its device, is due now: every process's deliverers hear of it at once.
    if (change.enabled || change.unordered) await deps.queue?.announce();
    if (change.enabled) {
      req.log.info({ webhookConfigId: updated.id }, 'a webhook endpoint was enabled again');
    } else if (existing.status === 'Active' && updated.status === 'Disabled') {
      req.log.info({ webhookConfigId: updated.id, reason: updated.disabledReason }, 'a webhook endpoint was disabled');
    }
    sendConfig(res, updated);
  },
  async deleteWebhook(req, res, deps) {
    const config = await configFor(req, res, deps, 'manage');
    const ifMatch = ifMatchOf(req);
    const check =
      ifMatch &&
      ((current: StoredConfig) => {
        requireMatch(ifMatch, current);
      });
    if (!(await deps.store.deleteConfig(config.id, undefined, check))) throw notFound(`webhook configuration ${config.id}`);
    res.json(true);
  },
  async linkDevice(req, res, deps) {
    const deviceId = deviceIdOf(req);
    const config = await configFor(req, res, deps, 'manage');
    const device = await deps.devices(deviceId, callerContextOf(res).credential);
    if (!device || device.companyId !== config.companyId) throw notFound(`device ${deviceId} in company ${config.companyId}`);
    const limit = deps.limits.devicesPerConfig;
    const link = await deps.store.linkDevice({ webhookConfigId: config.id, deviceId, createdAt: (deps.now?.() ?? new Date()).toISOString() }, limit);
    if (link === 'not-found') throw notFound(`webhook configuration ${config.id}`);
    if (link === 'already-linked') throw new WebhookApiError('CONFLICT', `device ${deviceId} is already linked to webhook configuration ${config.id}`);
    if (link === 'limit-reached') throw limitReached(`webhook configuration ${config.id} already has ${plural(limit, 'linked device', 'linked devices')}`);
    res.location(`/v2/webhooks/${config.id}/devices/${deviceId}`).status(201).json(link);
  },
  async listDevices(req, res, deps) {
    const config = await configFor(req, res, deps, 'view');
    const list = `links of ${config.id}`;
    const page = await deps.store.pageLinks(config.id, pageOf(req, list, deps.limits.devicesPerConfig));
    sendPage(req, res, `/v2/webhooks/${config.id}/devices`, list, page);
  },
  async unlinkDevice(req, res, deps) {
    const deviceId = deviceIdOf(req);
    const config = await configFor(req, res, deps, 'manage');
    if (!(await deps.store.unlinkDevice(config.id, deviceId))) throw notFound(`device ${deviceId} on webhook configuration ${config.id}`);
    // A batch stream whose head held only this device's points lost it: its next delivery goes on.
    if (config.ordering === 'PerDevice') await deps.queue?.releaseHeadless(1000);
    res.status(204).end();
  },
  async createScope(req, res, deps) {
    const { config, deviceId } = await linkedDevice(req, res, deps, 'manage');
    const route = applyScopeRules(parse(scopeInput, req.body, 'body'));
    const limit = deps.limits.scopesPerLink;
    const created = await deps.store.createScope(config.id, deviceId, { id: randomUUID(), ...route }, limit);
    if (created === 'not-found') throw notFound(`device ${deviceId} on webhook configuration ${config.id}`);
    if (created === 'duplicate') throw new WebhookApiError('CONFLICT', 'an identical scope is already on this device link');
    if (created === 'limit-reached')
      throw limitReached(`device ${deviceId} on webhook configuration ${config.id} already has ${plural(limit, 'scope', 'scopes')}`);
    res.location(`/v2/webhooks/${config.id}/devices/${deviceId}/routes/${created.id}`).status(201).json(created);
  },
  async listScopes(req, res, deps) {
    const { config, deviceId } = await linkedDevice(req, res, deps, 'view');
    const list = `scopes of ${config.id}/${deviceId}`;
    const page = await deps.store.pageScopes(config.id, deviceId, pageOf(req, list, deps.limits.scopesPerLink));
    sendPage(req, res, `/v2/webhooks/${config.id}/devices/${deviceId}/routes`, list, page);
  },
  async updateScope(req, res, deps) {
    const routeId = idOf(req, 'routeId');
    const { config, deviceId } = await linkedDevice(req, res, deps, 'manage');
    const route = applyScopeRules(parse(scopeInput, req.body, 'body'));
    const updated = routeId === undefined ? undefined : await deps.store.updateScope(config.id, deviceId, { id: routeId, ...route });
    if (updated === 'duplicate') throw new WebhookApiError('CONFLICT', 'an identical scope is already on this device link');
    if (!updated) throw notFound(`route ${String(req.params.routeId)}`);
    res.json(updated);
  },
  async deleteScope(req, res, deps) {
    const routeId = idOf(req, 'routeId');
    const { config, deviceId } = await linkedDevice(req, res, deps, 'manage');
    if (routeId === undefined || !(await deps.store.deleteScope(config.id, deviceId, routeId))) throw notFound(`route ${String(req.params.routeId)}`);
    res.status(204).end();
  },
};

export const addWebhookRoutes = (target: RouteTarget, deps: RouteDependencies): void => {
  addRoutes(target, routeSpecs, handlers, deps);
};
