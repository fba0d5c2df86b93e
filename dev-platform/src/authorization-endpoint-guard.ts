// What the platform adds in front of oidc-provider's authorization endpoint (/auth and its resume
// at /auth/:uid): the headers of a sign-in page on everything it answers (its error pages are
// pages a person sees, and must not be framed either). Discovery says which response modes clients
// may use: query and fragment only, since form_post's self-submitting page needs a script, which
// no page of the platform may run.
import { pageHeaders } from './page-security.ts';
import type { ProviderMiddleware } from './registration-guard.ts';

/** The response modes every client is held to (client metadata `response_modes`). */
export const responseModes: readonly string[] = Object.freeze(['query', 'fragment']);

const discoveryPaths = new Set(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']);

export function createAuthorizationEndpointGuard(): ProviderMiddleware {
  return async (ctx, next) => {
    if (ctx.path === '/auth' || ctx.path.startsWith('/auth/')) ctx.set(pageHeaders());
    await next();
    if (discoveryPaths.has(ctx.path) && ctx.status === 200 && typeof ctx.body === 'object' && ctx.body !== null) {
      (ctx.body as Record<string, unknown>).response_modes_supported = [...responseModes];
    }
  };
}
