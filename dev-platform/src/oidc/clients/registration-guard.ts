// What stands before oidc-provider's dynamic client registration (/reg, deprecated by the MCP
// authorization spec of 2026-07-28 in favour of client ID metadata documents, kept for the clients
// that still use it): CORS for browser-based MCP clients (the MCP Inspector registers from a page),
// a per-network rate, and a store that makes room before it takes a client.
import type Provider from 'oidc-provider';
import type { RegistrationRate } from './registration-rate.ts';

/** A middleware of oidc-provider's own (Koa) stack. */
export type ProviderMiddleware = Parameters<Provider['use']>[0];

export interface RegistrationGuardOptions {
  readonly rate: RegistrationRate;
  /** True when one more client fits (the store may drop one unused for longest to make room). */
  readonly roomForClient: () => boolean;
}

export function createRegistrationGuard(options: RegistrationGuardOptions): ProviderMiddleware {
  return async (ctx, next) => {
    if (ctx.path !== '/reg') {
      await next();
      return;
    }
    ctx.set('access-control-allow-origin', ctx.get('origin') || '*');
    ctx.vary('origin');
    if (ctx.method === 'OPTIONS') {
      ctx.set('access-control-allow-methods', 'POST');
      ctx.set('access-control-allow-headers', ctx.get('access-control-request-headers') || 'content-type');
      ctx.status = 204;
      return;
    }
    if (ctx.method === 'POST') {
      // Registration is open to anyone: each source network may register so many a minute, and a
      // full store takes a new client in place of the one unused for longest, never one in use.
      const waitSeconds = options.rate(ctx.ip);
      if (waitSeconds !== undefined) {
        ctx.status = 429;
        ctx.set('retry-after', String(waitSeconds));
        ctx.body = { error: 'temporarily_unavailable', error_description: `Too many registrations from this network; try again in ${waitSeconds} s.` };
        return;
      }
      if (!options.roomForClient()) {
        ctx.status = 503;
        ctx.set('retry-after', '3600');
        ctx.body = {
          error: 'temporarily_unavailable',
          error_description:
            'Every client this platform keeps has been used recently; try again later, or identify the client by a client ID metadata document.',
        };
        return;
      }
    }
    await next();
  };
}
