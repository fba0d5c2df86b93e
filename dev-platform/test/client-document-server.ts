// Where the tests' MCP clients publish their client ID metadata documents: a real https server on
// loopback (a certificate of the test's own CA, which the platform under test is told to trust),
// and the same documents over plain http, as a client developed on this machine serves them. Each
// path answers what the test put there, and counts how often it was fetched.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createTestPki } from '@platform/devtools/test-certificates';

export interface ServedDocument {
  /** The JSON document (serialized as it is), or a raw body. */
  readonly body: unknown;
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ClientDocumentServer {
  /** `https://127.0.0.1:<port>` */
  readonly httpsOrigin: string;
  /** `http://127.0.0.1:<port>` */
  readonly httpOrigin: string;
  /** The CA (PEM) that issued the https server's certificate. */
  readonly ca: string;
  /** Serves `document` at `path` (on both origins). */
  serve(path: string, document: ServedDocument): void;
  /** How often `path` was fetched so far. */
  fetches(path: string): number;
  close(): Promise<void>;
}

/** The document a client at `clientId` publishes, with `overrides`. */
export function clientDocument(clientId: string, redirectUris: readonly string[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_id: clientId,
    client_name: 'Document test client',
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...overrides,
  };
}

export async function startClientDocumentServer(): Promise<ClientDocumentServer> {
  const pki = await createTestPki();
  const documents = new Map<string, ServedDocument>();
  const counts = new Map<string, number>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const document = documents.get(path);
    if (!document) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such document');
      return;
    }
    const body = typeof document.body === 'string' ? document.body : JSON.stringify(document.body);
    res.writeHead(document.status ?? 200, { 'content-type': 'application/json', ...document.headers }).end(body);
  };
  const secure = createHttpsServer({ cert: readFileSync(pki.server.certFile), key: readFileSync(pki.server.keyFile) }, handle);
  const plain = createHttpServer(handle);
  for (const server of [secure, plain]) {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  }
  const port = (server: { address(): AddressInfo | string | null }) => (server.address() as AddressInfo).port;
  return {
    httpsOrigin: `https://127.0.0.1:${port(secure)}`,
    httpOrigin: `http://127.0.0.1:${port(plain)}`,
    ca: readFileSync(pki.caFile, 'utf8'),
    serve(path, document) {
      documents.set(path, document);
    },
    fetches: (path) => counts.get(path) ?? 0,
    async close() {
      for (const server of [secure, plain]) {
        server.closeAllConnections();
        server.close();
        await once(server, 'close');
      }
    },
  };
}
