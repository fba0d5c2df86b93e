// Who is calling and what they may touch. AuthVersion must be V0.0.1; the credential is a Bearer
// token (a person's or a delegated one) or an ApiToken; the platform's /api/me says who it is,
// through the SDK's cache, whose permissions are never older than a few seconds. The companyView
// header narrows the call to one company. Another company's resources are 404, never 403: their
// existence is not revealed.
import type { Caller, CallerCompany, Clock, HttpClient } from '@platform/tool-sdk';
import { createCallerCheck, type CallerCheck, type Credential } from '@platform/tool-sdk/internal';
import type { Request, RequestHandler, Response } from 'express';
import { notFound, WebhookApiError, invalid } from './errors.ts';

export interface CallerContext {
  readonly caller: Caller;
  readonly credential: Credential;
  /** Set by the companyView header: the only company this call may see. */
  readonly companyView: number | undefined;
}

export type { CallerCheck, Credential };
export type Right = 'view' | 'manage';

/**
 * How old the permissions a request is judged by may be: SPEC has a revoked role or withdrawn
 * consent take effect at once, and this is the bound on "at once" (WEBHOOK_PERMISSIONS_MAX_AGE).
 */
export const defaultPermissionsMaxAgeMs = 2_000;

export interface WebhookCallerCheckOptions {
  readonly httpClient: HttpClient;
  readonly platformApiBaseUrl: string;
  /** How long a token's identity stays cached (ME_CACHE_TTL_SECONDS). */
  readonly ttlSeconds: number;
  /** How old the cached permissions may be when used; undefined keeps them for the whole ttl (a benchmark's baseline). */
  readonly permissionsMaxAgeMs: number | undefined;
  readonly clock?: Clock;
}

/**
 * The webhook API's caller check: the SDK's, for Bearer and ApiToken credentials, accepting only
 * tokens issued for the platform API (the webhook API is part of it), delegated ones included. The
 * identity stays cached for the ttl and the permissions are refreshed ahead of use, so a caller
 * who keeps calling never waits for the platform, and a removed right is refused within the max age.
 */
export function createWebhookCallerCheck(options: WebhookCallerCheckOptions): CallerCheck {
  return createCallerCheck({
    apiBaseUrl: options.platformApiBaseUrl,
    audience: options.platformApiBaseUrl,
    httpClient: options.httpClient,
    cacheTtlSeconds: options.ttlSeconds,
    ...(options.permissionsMaxAgeMs !== undefined && { permissionsMaxAgeSeconds: options.permissionsMaxAgeMs / 1000 }),
    ...(options.clock && { clock: options.clock }),
    schemes: ['Bearer', 'ApiToken'],
    actor: 'any',
  });
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      callerContext?: CallerContext;
    }
  }
}

/**
 * Every Authorization header as sent, not the first only (several are refused, not guessed
 * between): what headersDistinct holds for it, read without building every other header's list.
 */
function authorizationOf(req: Request): string | string[] | undefined {
  const raw = req.rawHeaders;
  let found: string | string[] | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (name.length !== 13 || name.toLowerCase() !== 'authorization') continue;
    const value = raw[i + 1] ?? '';
    found = found === undefined ? value : [...(typeof found === 'string' ? [found] : found), value];
  }
  return found;
}

/** The SDK's refusal of a token issued for another audience (a person's token for the MCP server, say). */
const otherAudience = 'the token was not issued for this service';

/** The hint of a refusal: for a token of another audience, which token the API takes and how to get one locally. */
export function refusalHint(description: string): string | undefined {
  if (description !== otherAudience) return undefined;
  return (
    "The webhook API takes a token issued for the platform API (a person's token requested without the MCP server as its resource, a delegated token, " +
    'or an ApiToken), not one issued for the MCP server. Locally, npm run token -- <user> --api prints one.'
  );
}

export function requireCaller(check: CallerCheck): RequestHandler {
  return async (req, res, next) => {
    if (req.get('authversion') !== 'V0.0.1') {
      throw new WebhookApiError('UNAUTHENTICATED', 'AuthVersion: must be V0.0.1', { field: 'AuthVersion' });
    }
    const checked = await check(authorizationOf(req));
    if (!checked.ok) {
      const hint = refusalHint(checked.description);
      throw new WebhookApiError('UNAUTHENTICATED', `Authorization: ${checked.description}`, { field: 'Authorization', ...(hint && { hint }) });
    }
    const { caller, credential } = checked;

    const view = req.get('companyview');
    let companyView: number | undefined;
    if (view !== undefined) {
      companyView = Number(view);
      if (!/^\d+$/.test(view.trim()) || !Number.isSafeInteger(companyView) || companyView <= 0) {
        throw invalid('companyView', 'must be a company id (a positive whole number)');
      }
      if (!caller.companies.some((c) => c.id === companyView)) throw notFound(`company ${companyView}`);
    }
    res.locals.callerContext = { caller, credential, companyView };
    next();
  };
}

export function callerContextOf(res: Response): CallerContext {
  const context = res.locals.callerContext;
  if (!context) throw new Error('requireCaller must run before this handler');
  return context;
}

/**
 * The caller's company `companyId` when the call may see it and holds the right there:
 * 404 (as `what`) when it is not the caller's (or outside companyView), 403 when the right is missing.
 */
export function requireRight(context: CallerContext, companyId: number, right: Right, what: string): CallerCompany {
  const company = context.companyView === undefined || context.companyView === companyId ? context.caller.companies.find((c) => c.id === companyId) : undefined;
  if (!company) throw notFound(what);
  if (!company.permissions.has(`device-overview:${right}`)) {
    throw new WebhookApiError('FORBIDDEN', `device-overview:${right} is needed at company ${companyId}`);
  }
  return company;
}
