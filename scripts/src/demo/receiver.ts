// The demo's customer endpoint: a local HTTP server that takes webhook deliveries, keeps them, and
// prints each one (method, headers, envelope) with credentials masked, so a person watching the
// demo sees exactly what a customer's endpoint receives and nothing secret.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { listenOn, localOrigin } from '@platform/tool-sdk/internal';

export interface ReceivedDelivery {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
  /** The body as it arrived: what its signature covers. */
  readonly raw: string;
}

export interface DemoReceiver {
  /** Where deliveries are taken: the receiver's address and its path. */
  readonly url: string;
  readonly received: readonly ReceivedDelivery[];
  /** Resolves true once `count` deliveries have arrived in all, false after `timeoutMs`. */
  waitFor(count: number, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** Headers that carry credentials: their values are never printed. */
const credentialHeaders = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'cookie']);

/** `Bearer ********` for a credential header: the scheme shown, the secret not, not even its length. */
export function maskedHeaderValue(name: string, value: string): string {
  if (!credentialHeaders.has(name.toLowerCase())) return value;
  const scheme = /^(Bearer|Basic)\s/i.exec(value)?.[1];
  return scheme ? `${scheme} ********` : '********';
}

/** How a delivery is shown: its request line, every header (credentials masked), the envelope as JSON. */
export function describeDelivery(delivery: ReceivedDelivery): string {
  const headers = Object.entries(delivery.headers)
    .filter(([name]) => !['host', 'connection', 'content-length'].includes(name))
    .map(([name, value]) => `    ${name}: ${maskedHeaderValue(name, Array.isArray(value) ? value.join(', ') : (value ?? ''))}`);
  const body = JSON.stringify(delivery.body, null, 2)
    .split('\n')
    .map((line) => `    ${line}`);
  return [`  ${delivery.method} ${delivery.path}`, ...headers, ...body].join('\n');
}

/**
 * Listens on `port`; keeps what arrives at `path` and refuses anything else with 404 (a webhook an
 * earlier, interrupted demo left pointing here is then dropped by the deliverer, not retried).
 */
export async function startDemoReceiver(options: { readonly host?: string; readonly port: number; readonly path: string }): Promise<DemoReceiver> {
  const received: ReceivedDelivery[] = [];
  const waiting = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url !== options.path) {
        res.writeHead(404).end();
        return;
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, raw });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      for (const wake of waiting) wake();
    });
  });
  const host = options.host ?? '127.0.0.1';
  const port = await listenOn(server, { host, port: options.port, portVariable: 'DEMO_RECEIVER_PORT' });
  return {
    url: `${localOrigin(host, port)}${options.path}`,
    received,
    async waitFor(count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiting.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
          waiting.add(wake);
        });
      }
      return received.length >= count;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
