// A configuration as a route finds it by its path's id: one the caller may see with the right the
// route needs, a 404 otherwise (which tells a deleted configuration's viewers that it was deleted),
// and, for the attempt log, a deleted one whose log is still kept.
import type { Request, Response } from 'express';
import { callerContextOf, requireRight, type Right } from './caller-guard.ts';
import { notFound, WebhookApiError } from './errors.ts';
import { idOf } from './route-inputs.ts';
import type { StoredConfig } from '../store/records.ts';
import type { WebhookStore } from '../store/webhook-store.ts';

type StoreOnly = { readonly store: WebhookStore };

/**
 * The configuration `req.params.id`, when the caller may see it with `right`; 404 otherwise, which
 * for a deleted configuration of the caller's company says so and where its attempt log stays.
 */
export async function configFor(req: Request, res: Response, deps: StoreOnly, right: Right): Promise<StoredConfig> {
  const id = idOf(req, 'id');
  const config = id === undefined ? undefined : await deps.store.getConfig(id);
  if (!config) throw await missingConfig(id, req, res, deps);
  requireRight(callerContextOf(res), config.companyId, right, `webhook configuration ${config.id}`);
  return config;
}

/** The 404 for a configuration that is not there: the plain one, or, to its company's viewers, that it was deleted and when. */
async function missingConfig(id: string | undefined, req: Request, res: Response, deps: StoreOnly): Promise<WebhookApiError> {
  const plain = notFound(`webhook configuration ${String(req.params.id)}`);
  const deleted = id === undefined ? undefined : await deps.store.getDeletedConfig(id);
  if (!deleted || !canView(res, deleted.companyId)) return plain;
  return new WebhookApiError(
    'NOT_FOUND',
    `webhook configuration ${id} was deleted at ${new Date(deleted.deletedAt).toISOString()}; its attempt log stays readable at GET /v2/webhooks/${id}/deliveries until retention removes it`,
  );
}

/** Whether the caller holds the view right at `companyId` within its companyView. */
function canView(res: Response, companyId: number): boolean {
  try {
    requireRight(callerContextOf(res), companyId, 'view', 'company');
    return true;
  } catch {
    return false;
  }
}

/**
 * The configuration whose attempt log `req.params.id` names, for a viewer: an existing one, or a
 * deleted one whose log is still kept (then `deletedAt` says when it was deleted); 404 otherwise.
 */
export async function attemptLogOf(req: Request, res: Response, deps: StoreOnly): Promise<{ id: string; deletedAt: number | null }> {
  const id = idOf(req, 'id');
  const config = id === undefined ? undefined : await deps.store.getConfig(id);
  if (config) {
    requireRight(callerContextOf(res), config.companyId, 'view', `webhook configuration ${config.id}`);
    return { id: config.id, deletedAt: null };
  }
  const deleted = id === undefined ? undefined : await deps.store.getDeletedConfig(id);
  if (!deleted) throw notFound(`webhook configuration ${String(req.params.id)}`);
  requireRight(callerContextOf(res), deleted.companyId, 'view', `webhook configuration ${deleted.id}`);
  return { id: deleted.id, deletedAt: deleted.deletedAt };
}
