// 405 for a known path asked with a method it does not take (RFC 9110, 15.5.6), with the methods it
// does take in Allow, rather than a 404 that reads as if the path did not exist.
import type { RequestHandler } from 'express';
import { deliveryRouteSpecs } from './deliveries.routes.ts';
import { WebhookApiError } from './errors.ts';
import { signingSecretRouteSpecs } from './signing-secret.routes.ts';
import { testDeliveryRouteSpecs } from './test-delivery.routes.ts';
import { routeSpecs } from './webhooks.routes.ts';

/** A path the app serves, beside the REST routes', with its method. */
export interface ServedPath {
  readonly method: 'get' | 'post';
  readonly path: string;
}

/** The last handler: 405 with Allow for a path the app serves with other methods (the REST routes and `served`), 404 for any other. */
export function noSuchRoute(served: readonly ServedPath[]): RequestHandler {
  const byPath = new Map<string, Set<string>>();
  for (const { method, path } of [...routeSpecs, ...deliveryRouteSpecs, ...signingSecretRouteSpecs, ...testDeliveryRouteSpecs, ...served]) {
    byPath.set(path, (byPath.get(path) ?? new Set()).add(method.toUpperCase()));
  }
  // Each path as a pattern (a `:name` is one segment), with the methods it takes.
  const known = [...byPath].map(([path, methods]) => ({
    // Case-insensitive, as express routes are.
    pattern: new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/:[A-Za-z]+/g, '[^/]+')}/?$`, 'i'),
    allow: [...methods, ...(methods.has('GET') ? ['HEAD'] : [])].sort().join(', '),
  }));
  return (req, res) => {
    const path = known.find(({ pattern }) => pattern.test(req.path));
    if (path) {
      res.set('allow', path.allow);
      throw new WebhookApiError('METHOD_NOT_ALLOWED', `${req.method} is not a method of this path; it takes ${path.allow}`);
    }
    throw new WebhookApiError('NOT_FOUND', 'no such endpoint');
  };
}
