// What the platform adds in front of oidc-provider's authorization endpoint (/auth and its resume
// at /auth/:uid): the headers of a sign-in page on everything it answers (its error pages are
// pages a person sees, and must not be framed either), and a default scope. OAuth 2.1 lets a client
// leave `scope` out and the server apply a pre-defined default: here `api`, the one scope a
// person's token carries (oidc-provider would otherwise refuse the request with access_denied, as
// nothing was asked, so nothing could be granted). Discovery says which response modes clients may
// use: query and fragment only, since form_post's self-submitting page needs a script, which no
// page of the platform may run.
import { pageHeaders } from './page-security.ts';
import type { ProviderMiddleware } from './clients/registration-guard.ts';

/** The response modes every client is held to (client metadata `response_modes`). */
export const responseModes: readonly string[] = Object.freeze(['query', 'fragment']);

const discoveryPaths = new Set(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']);

export function createAuthorizationEndpointGuard(options: { readonly defaultScope: string }): ProviderMiddleware {
  return async (ctx, next) => {
    if (ctx.path === '/auth' || ctx.path.startsWith('/auth/')) {
      ctx.set(pageHeaders());
      if (ctx.method === 'GET' && ctx.path === '/auth' && ctx.query.scope === undefined) {
        const query = new URLSearchParams(ctx.querystring);
        query.set('scope', options.defaultScope);
        ctx.querystring = query.toString();
      }
    }
    await next();
    if (discoveryPaths.has(ctx.path) && ctx.status === 200 && typeof ctx.body === 'object' && ctx.body !== null) {
      (ctx.body as Record<string, unknown>).response_modes_supported = [...responseModes];
    }
  };
}
