// The dev platform's Prometheus metrics: HTTP requests by area of the platform (the API, the token
// endpoint, the OAuth pages, discovery, the dev routes) and status class, and their latency. The
// area is read from the path's first segment, so the labels stay a handful whatever is requested.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const namespace = 'platform_dev_';

function areaOf(url: string | undefined): string {
  const path = (url ?? '/').split('?', 1)[0] ?? '/';
  if (path.startsWith('/api/')) return 'api';
  if (path === '/token' || path.startsWith('/token/')) return 'token';
  if (path.startsWith('/.well-known/') || path === '/jwks') return 'discovery';
  if (path.startsWith('/dev/')) return 'dev';
  if (path === '/health' || path === '/metrics') return 'health';
  return 'oauth';
}

export interface PlatformMetrics {
  readonly registry: Registry;
  /** Wraps the platform's request listener: each request counted by area and status class when its answer ends. */
  counting(app: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void;
}

export function createPlatformMetrics(): PlatformMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: namespace });
  const requests = new Counter({
    name: `${namespace}http_requests_total`,
    help: 'HTTP requests to the dev platform, by area (api, token, oauth, discovery, dev, health) and status class (2xx, 4xx, ...).',
    labelNames: ['area', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${namespace}http_request_duration_seconds`,
    help: 'Time to answer a request, by area.',
    labelNames: ['area'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return {
    registry,
    counting: (app) => (req, res) => {
      const started = performance.now();
      const area = areaOf(req.url);
      res.once('finish', () => {
        requests.inc({ area, status: `${Math.floor(res.statusCode / 100)}xx` });
        duration.observe({ area }, (performance.now() - started) / 1000);
      });
      app(req, res);
    },
  };
}
