// CORS for browser-based MCP clients (the Inspector UI's direct mode, web agents) calling from an
// origin the gateway allows (MCP_ALLOWED_ORIGINS, loopback and the public URL's host): a preflight
// of the MCP endpoint is answered, and every answer to such a caller lets the page read the headers
// MCP needs. It runs after the Origin check, so a foreign origin has been answered 403 already,
// with no CORS header for its page to read anything by.
import type { NextFunction, Request, Response } from 'express';

/** What a browser client sends besides simple headers: the token, and MCP's own. */
const allowedHeaders = ['Authorization', 'Content-Type', 'Accept', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID'];
/** What a browser client must read of an answer: its session, the revision, and the 401 challenge. */
const exposedHeaders = ['Mcp-Session-Id', 'Mcp-Protocol-Version', 'WWW-Authenticate'];
const preflightMaxAgeSeconds = 600;

/** `mcpPath`: the MCP endpoint, whose preflight (OPTIONS) is answered here. */
export function corsForAllowedOrigins(mcpPath: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (origin === undefined || origin === '') {
      next();
      return;
    }
    res.vary('Origin');
    res.set({ 'access-control-allow-origin': origin, 'access-control-expose-headers': exposedHeaders.join(', ') });
    if (req.method === 'OPTIONS' && req.path === mcpPath && req.headers['access-control-request-method'] !== undefined) {
      res
        .status(204)
        .set({
          'access-control-allow-methods': 'GET, POST, DELETE',
          'access-control-allow-headers': allowedHeaders.join(', '),
          'access-control-max-age': String(preflightMaxAgeSeconds),
        })
        .end();
      return;
    }
    next();
  };
}
