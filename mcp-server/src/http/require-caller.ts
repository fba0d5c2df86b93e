// The Express guard in front of /mcp: the person behind the bearer token, checked at the platform's
// GET /api/me through the SDK's caller check (cached per token). Only a person's own token issued
// for this server passes: a token for another audience, a delegated token or an expired one gets
// the 401 challenge; a platform outage gets 503.
import type { AuthInfo } from '@modelcontextprotocol/server';
import { isPlatformError, type Caller } from '@platform/tool-sdk';
import type { CallerCheck } from '@platform/tool-sdk/internal';
import type { NextFunction, Request, Response } from 'express';
import { platformUnavailable, unauthorized, type ChallengeOptions, type Refusal } from './bearer-challenge.ts';

declare module 'express-serve-static-core' {
  interface Request {
    /** The person the request was made for; set by requireCaller. */
    caller?: Caller;
  }
}

/** What the MCP handlers read from `ctx.http.authInfo.extra`. */
export interface CallerInfo {
  readonly caller: Caller;
  /** The HTTP request's id (x-request-id), repeated in the tool service's logs. */
  readonly requestId: string;
}

export function callerInfoOf(authInfo: AuthInfo | undefined): CallerInfo | undefined {
  return authInfo?.extra as CallerInfo | undefined;
}

function send(res: Response, refusal: Refusal): void {
  res.status(refusal.status).set(refusal.headers).json(refusal.body);
}

/**
 * The Authorization header, or every value when it was sent more than once: Node keeps only the
 * first in `headers`, and the caller check must refuse the ambiguity. The raw headers are scanned
 * rather than `headersDistinct`, which would copy every header of every request.
 */
function authorizationOf(req: Request): string | string[] | undefined {
  const raw = req.rawHeaders;
  let values: string[] | undefined;
  for (let index = 0; index < raw.length; index += 2) {
    if (raw[index]?.toLowerCase() === 'authorization') (values ??= []).push(raw[index + 1] ?? '');
  }
  return values !== undefined && values.length > 1 ? values : req.headers.authorization;
}

export function requireCaller(checkCaller: CallerCheck, challenge: ChallengeOptions) {
  const scopes = challenge.scope.split(' ');
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    let result;
    try {
      result = await checkCaller(authorizationOf(req));
    } catch (error) {
      if (!isPlatformError(error)) throw error;
      req.log.warn({ err: error }, 'the caller could not be checked: the platform is unavailable');
      send(res, platformUnavailable());
      return;
    }
    if (!result.ok) {
      send(res, unauthorized(result.error, result.description, challenge));
      return;
    }
    const { caller, credential } = result;
    req.caller = caller;
    // No expiresAt: the token was checked at the platform just now (or within the cache's short
    // lifetime, never past its expiry), which is all the MCP handlers rely on.
    req.auth = { token: credential.token, clientId: caller.id, scopes, extra: { caller, requestId: req.id } satisfies CallerInfo };
    next();
  };
}
