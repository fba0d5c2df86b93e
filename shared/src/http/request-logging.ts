// One logger per HTTP request (req.log, carrying the request id) and one completion line per
// request, with the request id echoed in `x-request-id`. The line carries an allow-list of headers
// and the path without its query string: a credential in any other header, or a token someone put
// in a query string, never reaches a log, whatever the redaction list knows.
//
// Why not pino-http: it builds a child logger bound to the whole request on every request, and
// pino serializes and redacts those bindings at once, even when no line is written; on the dev
// platform that cost more than verifying the JWT. Here req.log is bound to the request id alone
// (under a microsecond) and the completion line is built only when its level is enabled. req.log is
// a plain property: a getter defined on each request gave every request a hidden class of its own,
// which left every property access on it, in this code and in Express, megamorphic (about a fifth
// of a cached GET of the webhook API).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Level, Logger } from 'pino';

declare module 'node:http' {
  interface IncomingMessage {
    /** The request id, given by the caller in `x-request-id` (when well-formed) or generated. */
    id: string;
    /** A logger whose every line carries the request id. */
    log: Logger;
  }
}

const requestIdPattern = /^[A-Za-z0-9._-]{1,64}$/;

/** The only request headers a completion line carries. */
export const loggedRequestHeaders = ['user-agent', 'content-type', 'content-length', 'x-request-id'] as const;

function headersToLog(req: IncomingMessage): Record<string, string | string[]> {
  const picked: Record<string, string | string[]> = {};
  for (const name of loggedRequestHeaders) {
    const value = req.headers[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

/**
 * The request's path alone: no query string or fragment, and for a request line in absolute form
 * (`GET http://user:password@host/path`) no scheme, user information or host either.
 */
function pathOf(url: string | undefined): string {
  const target = url ?? '';
  if (target.startsWith('/')) return target.replace(/[?#].*$/s, '');
  return URL.canParse(target) ? new URL(target).pathname : '[not a path]';
}

function levelOf(statusCode: number): Level {
  if (statusCode >= 500) return 'error';
  return statusCode >= 400 ? 'info' : 'debug';
}

/** A middleware (Express or node:http) that logs each request with a request id. */
export type RequestLogging = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/** Request logging on `logger`: one child logger per request and a completion line with allow-listed headers only. */
export function createRequestLogging(logger: Logger): RequestLogging {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
    const started = performance.now();
    // Read now: a router mounted on a prefix rewrites req.url while the request is handled.
    const target = req.url;
    req.id = id;
    req.log = logger.child({ reqId: id });
    res.setHeader('x-request-id', id);
    res.once('finish', () => {
      const level = levelOf(res.statusCode);
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          reqId: id,
          req: { method: req.method, path: pathOf(target), headers: headersToLog(req), remoteAddress: req.socket.remoteAddress },
          res: { statusCode: res.statusCode },
          responseTime: Math.round(performance.now() - started),
        },
        'request completed',
      );
    });
    next();
  };
}
