// The delivery endpoints of a configuration, in the route-table style of webhooks.routes.ts (the
// OpenAPI document reads every table): its attempt log, newest first; sending a delivery that waits
// for its retry now; sending a dropped or failed delivery again; and sending again every one that
// failed or was dropped since a time (recovery after an outage).
import { z } from 'zod';
import {
  deliveriesQuery,
  deliveryAttempt,
  deliveryRecord,
  deliveryStatesQuery,
  maxRecoveredPerCall,
  recoveredDeliveries,
  recoverInput,
  resentDelivery,
  retriedDelivery,
  type DeliveryAttempt,
} from './deliveries.schemas.ts';
import { notFound, WebhookApiError } from './errors.ts';
import { pageOf, sendPage } from './list-pages.ts';
import { idOf, parse } from './route-inputs.ts';
import type { AttemptRecord } from '../queue/delivery-queue.ts';
import type { DeliveryQueue } from '../queue/delivery-queue.ts';
import type { WebhookStore } from '../store/webhook-store.ts';
import { addRoutes, type DeliveryRouteSpec, type FixedPaging, type RouteHandler, type RouteTarget } from './route-spec.ts';
import type { Response } from 'express';
import { attemptLogOf, configFor } from './config-lookup.ts';

export interface DeliveryRouteDependencies {
  readonly store: WebhookStore;
  readonly queue: DeliveryQueue;
  readonly now?: () => number;
}

type Handler = RouteHandler<DeliveryRouteDependencies>;

const attemptPaging: FixedPaging = { most: 100, byDefault: 50, order: 'newest first' };
const deliveryPaging: FixedPaging = { most: 100, byDefault: 20, order: 'newest first' };

export const deliveryRouteSpecs = [
  {
    operationId: 'listDeliveryAttempts',
    method: 'get',
    path: '/v2/webhooks/:id/deliveries',
    summary: "The configuration's attempt log, newest first: every attempt of every delivery, with what the endpoint answered",
    right: 'view',
    query: deliveriesQuery,
    success: { status: 200, schema: z.array(deliveryAttempt), description: 'The attempts, newest first, without credentials or headers' },
    errors: [400, 403, 404],
    paging: attemptPaging,
    keptAfterDeletion: true,
  },
  {
    operationId: 'listDeliveriesByState',
    method: 'get',
    path: '/v2/webhooks/:id/deliveries/by-state',
    summary:
      "The configuration's deliveries, newest first, each with its current state (waiting, retrying, delivered, dropped, failed) and its attempts; state=waiting,retrying is what is still to be delivered",
    right: 'view',
    query: deliveryStatesQuery,
    success: { status: 200, schema: z.array(deliveryRecord), description: 'The deliveries, newest first, each with its attempts oldest first' },
    errors: [400, 403, 404],
    paging: deliveryPaging,
    keptAfterDeletion: true,
  },
  {
    operationId: 'retryDelivery',
    method: 'post',
    path: '/v2/webhooks/:id/deliveries/:deliveryId/retry',
    summary: 'Send a delivery that waits for its retry now, instead of when its schedule says (its attempt count goes on)',
    right: 'manage',
    success: { status: 202, schema: retriedDelivery, description: 'Due now' },
    errors: [400, 403, 404, 409],
  },
  {
    operationId: 'resendDelivery',
    method: 'post',
    path: '/v2/webhooks/:id/deliveries/:deliveryId/resend',
    summary: 'Send a dropped or failed delivery again, as a new delivery with the same points',
    right: 'manage',
    success: { status: 202, schema: resentDelivery, description: 'Queued: the id of the new delivery' },
    errors: [400, 403, 404, 409],
  },
  {
    operationId: 'recoverDeliveries',
    method: 'post',
    path: '/v2/webhooks/:id/deliveries/recover',
    summary: `Send again every failed or dropped delivery since a time (at most ${maxRecoveredPerCall} a call): each a new delivery with the same points and webhook-id; what was sent again already is not sent again twice`,
    right: 'manage',
    body: recoverInput,
    success: { status: 202, schema: recoveredDeliveries, description: 'Queued: how many, and whether more are left' },
    errors: [400, 403, 404],
  },
] as const satisfies readonly DeliveryRouteSpec[];

type OperationId = (typeof deliveryRouteSpecs)[number]['operationId'];

/** An attempt as answered: the listed fields only, whatever the record may grow to hold. */
function publicAttempt(record: AttemptRecord): DeliveryAttempt {
  return {
    deliveryId: record.deliveryId,
    webhookId: record.webhookId,
    attempt: record.attempt,
    outcome: record.outcome,
    responseStatus: record.responseStatus,
    error: record.error,
    responseBody: record.responseBody,
    durationMs: record.durationMs,
    startedAt: record.startedAt,
    pointCount: record.pointCount,
    nextAttemptAt: record.nextAttemptAt,
    test: record.test,
  };
}

/** The header that marks the attempt log of a deleted configuration (kept until retention removes it). */
export const deletedConfigHeader = 'Webhook-Config-Deleted-At';

/** Marks the answer when the configuration was deleted: when, in the Webhook-Config-Deleted-At header. */
function markedLog<Log extends { deletedAt: number | null }>(res: Response, log: Log): Log {
  if (log.deletedAt !== null) res.set(deletedConfigHeader, new Date(log.deletedAt).toISOString());
  return log;
}

const handlers: Record<OperationId, Handler> = {
  async listDeliveryAttempts(req, res, deps) {
    const config = markedLog(res, await attemptLogOf(req, res, deps));
    const { outcome, since } = parse(deliveriesQuery, req.query, 'query');
    const list = `attempts of ${config.id}`;
    const page = pageOf(req, list, attemptPaging.most);
    // pageOf's default is its most (a whole collection); the log can be long, so a smaller page unless asked.
    const limit = req.query.limit === undefined ? attemptPaging.byDefault : page.limit;
    const filter = { outcome, since: since === undefined ? undefined : Date.parse(since) };
    const attempts = await deps.queue.pageAttempts(config.id, filter, { limit, after: page.after });
    sendPage(req, res, `/v2/webhooks/${config.id}/deliveries`, list, { items: attempts.items.map(publicAttempt), next: attempts.next });
  },
  async listDeliveriesByState(req, res, deps) {
    const config = markedLog(res, await attemptLogOf(req, res, deps));
    const { state } = parse(deliveryStatesQuery, req.query, 'query');
    const list = `deliveries of ${config.id}`;
    const page = pageOf(req, list, deliveryPaging.most);
    const limit = req.query.limit === undefined ? deliveryPaging.byDefault : page.limit;
    const deliveries = await deps.queue.pageDeliveries(config.id, { states: state }, { limit, after: page.after }, deps.now?.() ?? Date.now());
    sendPage(req, res, `/v2/webhooks/${config.id}/deliveries/by-state`, list, deliveries);
  },
  async retryDelivery(req, res, deps) {
    const deliveryId = idOf(req, 'deliveryId');
    const config = await configFor(req, res, deps, 'manage');
    if (deliveryId === undefined) throw notFound(`delivery of webhook configuration ${config.id}`);
    const what = `delivery ${deliveryId} of webhook configuration ${config.id}`;
    const retried = await deps.queue.retryNow(config.id, deliveryId, deps.now?.() ?? Date.now());
    if (retried === 'not-found') throw notFound(what);
    if (retried === 'in-flight') throw new WebhookApiError('CONFLICT', `${what} is being sent right now; its outcome shows in the attempt log`);
    if (retried === 'held')
      throw new WebhookApiError(
        'CONFLICT',
        `${what} waits for an earlier delivery of its device (ordering PerDevice); it goes once that one is delivered, dropped or failed`,
      );
    if (retried === 'settled')
      throw new WebhookApiError('CONFLICT', `${what} is not waiting for a retry (it was delivered, dropped or failed); a dropped or failed one can be resent`);
    res.status(202).json({ deliveryId, nextAttemptAt: new Date(retried.nextAttemptAt).toISOString() });
  },
  async resendDelivery(req, res, deps) {
    const deliveryId = idOf(req, 'deliveryId');
    const config = await configFor(req, res, deps, 'manage');
    // Not an id the queue could have made: not found without a query, and not repeated back.
    if (deliveryId === undefined) throw notFound(`delivery of webhook configuration ${config.id}`);
    const what = `delivery ${deliveryId} of webhook configuration ${config.id}`;
    const resent = await deps.queue.resend(config.id, deliveryId, deps.now?.() ?? Date.now());
    if (resent === 'not-found') throw notFound(what);
    if (resent === 'not-settled')
      throw new WebhookApiError('CONFLICT', `${what} is still being delivered; only a dropped or failed delivery can be sent again`);
    if (resent === 'delivered') throw new WebhookApiError('CONFLICT', `${what} was delivered; only a dropped or failed delivery can be sent again`);
    if (resent === 'resend-queued') throw new WebhookApiError('CONFLICT', `${what} is already being sent again`);
    if (resent === 'unlinked') throw new WebhookApiError('CONFLICT', `${what} has no point of a device still linked to send again`);
    if (resent === 'test') throw new WebhookApiError('CONFLICT', `${what} is a test delivery; send another test instead`);
    res.status(202).json({ deliveryId: resent.resent });
  },
  async recoverDeliveries(req, res, deps) {
    const config = await configFor(req, res, deps, 'manage');
    const { since } = parse(recoverInput, req.body, 'body');
    const recovered = await deps.queue.recover(config.id, Date.parse(since), deps.now?.() ?? Date.now(), maxRecoveredPerCall);
    req.log.info({ webhookConfigId: config.id, since, ...recovered }, 'deliveries recovered');
    res.status(202).json(recovered);
  },
};

export const addDeliveryRoutes = (target: RouteTarget, deps: DeliveryRouteDependencies): void => {
  addRoutes(target, deliveryRouteSpecs, handlers, deps);
};
