// The gateway's HTTP face: /health for a load balancer, DNS rebinding protection first, CORS for the origins it allows, then the
// public protected-resource metadata, then the MCP endpoint behind the caller check. Anything unexpected is a generic 500
// with the cause in the log, never in the answer.
import { createRequestLogging } from '@platform/tool-sdk/internal';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { corsForAllowedOrigins } from './cors.ts';
import { answerBodyErrors, createMcpEndpoint, dnsRebindingProtection, type McpEndpointOptions } from './mcp-endpoint.ts';
import type { ProtectedResource } from './protected-resource.ts';

/** The MCP endpoint's options (its path also answers the CORS preflight and names the endpoint in a 404), and what stands before it. */
export interface HttpAppOptions extends McpEndpointOptions {
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  readonly protectedResource: ProtectedResource;
}

export function createHttpApp(options: HttpAppOptions): Express {
  const { logger } = options;
  const app = express();
  app.disable('x-powered-by');
  // A load balancer's check of this replica, answered before the Host check: it names no tool or caller.
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(createRequestLogging(logger));
  app.use(...dnsRebindingProtection(options.allowedHosts, options.allowedOrigins));
  app.use(corsForAllowedOrigins(options.path));
  app.use(options.protectedResource.routes);
  app.use(createMcpEndpoint(options));
  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found', error_description: `Nothing here; the MCP endpoint is ${options.path}.` });
  });
  app.use(answerBodyErrors);
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    req.log.error({ err: error }, 'request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null });
  });
  return app;
}
