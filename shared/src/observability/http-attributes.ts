// HTTP span attributes by the semantic conventions, from what is safe to export: the method, the
// server's host and port, the path. Never the query (it may carry a signature or a token) nor the
// userinfo of a URL.

const defaultPorts: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

export function httpClientAttributes(method: string, url: URL): Record<string, string | number> {
  return {
    'http.request.method': method,
    'server.address': url.hostname,
    'server.port': url.port === '' ? (defaultPorts[url.protocol] ?? 0) : Number(url.port),
    'url.scheme': url.protocol.slice(0, -1),
    'url.path': url.pathname,
  };
}

/** The path of a request target (`/a/b?x=1` gives `/a/b`). */
export function pathOf(target: string | undefined): string {
  const path = (target ?? '/').split('?', 1)[0] ?? '/';
  return path.slice(0, 512);
}
