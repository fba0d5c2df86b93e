// The one GET /metrics for Prometheus, framework-free (every service's, the webhook API's included):
// a registry's text format behind a bearer token (compared whole and in constant time), or open to
// anyone only when the operator chose so (metrics-settings.ts holds the rule). A service mounts it on
// its own HTTP port, or serves it on a small listener of its own.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { closeServer, listenOn } from '../service/lifecycle.ts';

/** Who may scrape: the holders of a bearer token, or, opened explicitly, anyone who reaches the port. */
export type MetricsAccess = { readonly token: string } | 'public';

const digestOf = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export type MetricsHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** How a handler answers a collection that failed for an outage of what the metrics read (a store). */
export interface MetricsOutage {
  /** Whether this collection failure is such an outage: 503 with Retry-After, not 500. */
  readonly is: (error: unknown) => boolean;
  /** The 503's text, safe to show. */
  readonly message: string;
  /** Retry-After, in seconds. Default 5. */
  readonly retryAfterSeconds?: number;
}

/**
 * GET /metrics: 401 with `WWW-Authenticate: Bearer` unless `access` is `'public'` or the request
 * holds exactly one `Authorization: Bearer <token>`; then the registry's text, 503 for an `outage`,
 * 500 for any other failure of the collection.
 */
export function createMetricsHandler(registry: Registry, access: MetricsAccess, options: { readonly outage?: MetricsOutage } = {}): MetricsHandler {
  if (access !== 'public' && !access.token)
    throw new TypeError("createMetricsHandler: the token must not be empty; pass 'public' to serve /metrics without one");
  const expected = access === 'public' ? undefined : digestOf(`Bearer ${access.token}`);
  return (req, res) => {
    const [presented, ...more] = req.headersDistinct.authorization ?? [];
    if (expected !== undefined && !(presented !== undefined && more.length === 0 && timingSafeEqual(digestOf(presented), expected))) {
      res.writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'text/plain' }).end('Authorization: the metrics token is missing or wrong\n');
      return;
    }
    const { outage } = options;
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => {
        if (outage?.is(error)) {
          res.writeHead(503, { 'retry-after': String(outage.retryAfterSeconds ?? 5), 'content-type': 'text/plain' }).end(outage.message);
        } else {
          res.writeHead(500, { 'content-type': 'text/plain' }).end('The metrics could not be collected.\n');
        }
      },
    );
  };
}

/** Whether a request is a GET of /metrics (a query is ignored). */
export function isMetricsRequest(req: IncomingMessage): boolean {
  return req.method === 'GET' && (req.url === '/metrics' || req.url?.startsWith('/metrics?') === true);
}

/**
 * An HTTP request listener that answers GET /metrics with `metrics` and hands every other request
 * to `app`: how a service adds /metrics to its port without touching its routes.
 */
export function withMetrics(app: (req: IncomingMessage, res: ServerResponse) => void, metrics: MetricsHandler | undefined) {
  if (!metrics) return app;
  return (req: IncomingMessage, res: ServerResponse) => {
    if (isMetricsRequest(req)) metrics(req, res);
    else app(req, res);
  };
}

export interface MetricsListener {
  readonly port: number;
  close(): Promise<void>;
}

/** Serves /metrics alone on its own port (a tool service, whose main port speaks gRPC); anything else is 404. */
export async function serveMetrics(handler: MetricsHandler, where: { host: string; port: number; portVariable: string }): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    if (isMetricsRequest(req)) handler(req, res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n');
  });
  const port = await listenOn(server, where);
  return { port, close: () => closeServer(server) };
}
