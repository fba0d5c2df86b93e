// Middleware that always run together, as one Express layer: each layer the router walks into costs
// every request a path match, a parameters pass and their allocations (a cached GET walked five
// where bare Express walks one), and these pairs never part.
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs `handlers` one after the other as Express would run them as layers of their own: `next()`
 * (or `next('route')`, which at a middleware layer only moves on) goes to the next handler, an
 * error or `next('router')` leaves the chain for the router, and a handler's rejected promise
 * reaches the router's error handling as a rejection of the chain's own.
 */
export function chain(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => run(handlers, 0, req, res, next);
}

function run(handlers: readonly RequestHandler[], index: number, req: Request, res: Response, next: NextFunction): unknown {
  const handler = handlers[index];
  if (!handler) {
    next();
    return undefined;
  }
  return handler(req, res, (error?: unknown) => {
    if (error && error !== 'route') {
      next(error);
      return;
    }
    const rest = run(handlers, index + 1, req, res, next);
    if (rest instanceof Promise) rest.catch(next);
  });
}
