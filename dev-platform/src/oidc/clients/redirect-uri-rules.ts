// Which redirect URIs a dynamically registered client may name, as real authorization servers
// allow them for MCP clients: plain http to this machine's loopback (any port: a native app's
// local callback, RFC 8252), or https; never user information, a wildcard, a fragment or another
// scheme. A code sent anywhere else would reach whoever registered the address.
import { isLoopbackHost, webAddressMessages, webAddressProblem } from '@platform/tool-sdk/internal';

/** Why `uri` may not be a redirect URI; undefined when it may. */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return 'must be a string';
  if (uri.includes('*')) return 'must not contain a wildcard (*)';
  const problem = webAddressProblem(uri);
  if (problem) return problem === 'scheme' ? 'must be an https URL, or an http URL on loopback (127.0.0.1, [::1], localhost)' : webAddressMessages[problem];
  const { protocol, hostname } = new URL(uri);
  if (protocol === 'http:' && !isLoopbackHost(hostname)) return 'must use https, unless it is on loopback (127.0.0.1, [::1], localhost)';
  return undefined;
}
