// A route as its table states it: method, path, rights, inputs and success shape, read by the
// Express router and by the OpenAPI document alike, so the two cannot drift apart.
import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { WebhookLimits } from '../configs/limits.ts';
import type { Right } from './caller-guard.ts';

export interface RouteSpec {
  readonly operationId: string;
  readonly method: 'get' | 'post' | 'put' | 'delete';
  readonly path: string;
  readonly summary: string;
  readonly right: Right;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly success: { readonly status: 200 | 201 | 204; readonly schema?: z.ZodType; readonly description: string };
  readonly errors: readonly number[];
  /** A list endpoint: pages of at most this limit's number of items (`limit`, `cursor`, a Link to the next page). */
  readonly paging?: keyof WebhookLimits;
}

/** Pages of a fixed size rather than one of the configurable limits. */
export interface FixedPaging {
  /** `limit` from 1 to this. */
  readonly most: number;
  /** `limit` when omitted. */
  readonly byDefault: number;
  /** The order of the items, as the document states it. */
  readonly order: string;
}

export interface DeliveryRouteSpec extends Omit<RouteSpec, 'success' | 'paging'> {
  readonly success: { readonly status: 200 | 202; readonly schema: z.ZodType; readonly description: string };
  readonly paging?: FixedPaging;
  /** Also answers for a deleted configuration (its attempt log is kept until retention), marked by the Webhook-Config-Deleted-At header. */
  readonly keptAfterDeletion?: true;
}

/** A route's handler, given the dependencies of its table. */
export type RouteHandler<Deps> = (req: Request, res: Response, deps: Deps) => Promise<void>;

/** Where a route table's routes go: the app itself, whose own router matches them. */
export interface RouteTarget {
  get(path: string, handler: RequestHandler): unknown;
  post(path: string, handler: RequestHandler): unknown;
  put(path: string, handler: RequestHandler): unknown;
  delete(path: string, handler: RequestHandler): unknown;
}

/**
 * Adds a route table's routes to `target`, each to the handler named by its operationId. On the
 * app itself rather than in a router of their own: entering a nested router cost a few microseconds
 * of every request, a tenth of a cached GET's own work.
 */
export function addRoutes<Spec extends Pick<RouteSpec, 'method' | 'path' | 'operationId'>, Deps>(
  target: RouteTarget,
  specs: readonly Spec[],
  handlers: Record<Spec['operationId'], RouteHandler<Deps>>,
  deps: Deps,
): void {
  for (const spec of specs) {
    const handler = handlers[spec.operationId as Spec['operationId']];
    target[spec.method](spec.path, (req, res) => handler(req, res, deps));
  }
}
