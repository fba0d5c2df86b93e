// Which client_id values are URLs of client ID metadata documents (the MCP authorization spec of
// 2026-07-28, draft-ietf-oauth-client-id-metadata-document): an https URL with a path, no fragment,
// no user information and no dot segments. The dev platform itself runs on loopback http, so it
// takes loopback http client ids too (a client developed on this machine), unless told it runs in
// production; a document on loopback is refused there by the address rules all the same.
import { isLoopbackHost, webAddressMessages, webAddressProblem } from '@platform/tool-sdk/internal';

/** Longest client_id taken as a document's URL. */
const maxLength = 2000;

/** Whether `clientId` is meant as a document's URL: such an id is answered from its document, or refused saying why, never looked up as a registration. */
export function isClientIdUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** Why `clientId` cannot be a document's URL; undefined when it can. */
export function clientIdUrlProblem(clientId: string, options: { readonly allowLoopbackHttp: boolean }): string | undefined {
  const https = options.allowLoopbackHttp
    ? 'must be an https URL (or an http URL on loopback: 127.0.0.1, [::1], localhost)'
    : 'must be an https URL (http is taken on loopback only, and not in production)';
  if (clientId.length > maxLength) return `must be at most ${maxLength} characters`;
  // The raw string, before the URL parser normalizes it: the document must name exactly this string.
  const problem = webAddressProblem(clientId);
  if (problem) return problem === 'scheme' ? https : webAddressMessages[problem];
  const url = new URL(clientId);
  if (url.protocol === 'http:' && !(options.allowLoopbackHttp && isLoopbackHost(url.hostname))) return https;
  const path = /^[a-z]+:\/\/[^/?#]*([^?#]*)/i.exec(clientId)?.[1] ?? '';
  if (path === '' || path === '/') return 'must have a path (https://host/client.json): the document is the path, not the host';
  if (path.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) return 'must not contain . or .. path segments';
  return undefined;
}
