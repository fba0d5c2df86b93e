// Express guards that attach the caller's principal, or answer 401/403 in the platform's shape.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Principal } from '../world/access.ts';
import { ApiError } from './api-error.ts';
import type { Authenticator } from './credential-check.ts';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      principal?: Principal;
      /** The audiences the caller's token was issued for. */
      tokenAudience?: readonly string[];
    }
  }
}

/** Identifies the caller by a token issued for one of `audiences`; 401 otherwise (several Authorization headers too). */
export function requireAuthentication(authenticator: Authenticator, audiences: readonly string[]): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const headers = req.headersDistinct.authorization;
    if (headers && headers.length > 1) throw new ApiError('invalid_token', 'send one Authorization header, not several');
    const result = await authenticator.authenticate(headers?.[0], audiences);
    if (!result.ok) throw new ApiError('invalid_token', result.reason);
    res.locals.principal = result.principal;
    res.locals.tokenAudience = result.audience;
    next();
  };
}

export function principalOf(res: Response): Principal {
  const principal = res.locals.principal;
  if (!principal) throw new Error('requireAuthentication must run before this handler');
  return principal;
}

/** The audiences the caller's token was issued for. */
export function tokenAudienceOf(res: Response): readonly string[] {
  return res.locals.tokenAudience ?? [];
}

/** The principal, when it is a person or a delegated call (not an app on its own). */
export function personOf(res: Response): Exclude<Principal, { kind: 'app' }> {
  const principal = principalOf(res);
  if (principal.kind === 'app') throw new ApiError('not_a_person', 'This call needs a person; an app token has none.');
  return principal;
}
