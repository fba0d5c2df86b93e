// The one rule for a request's JSON body, framework-free so each service keeps its own error shape:
// JSON as sent (no Content-Encoding), under a JSON media type, in UTF-8. A request without a body
// passes; each service parses what passes with express.json({ type: jsonBodyTypes, inflate: false }).
import type { IncomingHttpHeaders } from 'node:http';

/** The media types a JSON body may be sent as, in express.json's `type` spelling. */
export const jsonBodyTypes: readonly string[] = ['application/json', 'application/*+json'];

/** Why a body is refused (answered 415): the header at fault and a message safe to show that names it. */
export interface JsonBodyRefusal {
  readonly field: 'Content-Type' | 'Content-Encoding';
  readonly message: string;
}

/** Whether the request carries a body: chunked, or a Content-Length other than 0. */
export function hasRequestBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** `application/json` or `application/<suffix>+json` (RFC 6839), parameters aside. */
function isJsonMediaType(contentType: string): boolean {
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[!#$&^_.+\w-]+\+json$/.test(mediaType);
}

/** Every charset parameter of a Content-Type, lower-cased and unquoted (a sender may give several). */
function charsetsOf(contentType: string): string[] {
  return [...contentType.matchAll(/;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/gi)].map((m) => (m[1] ?? m[2] ?? '').toLowerCase());
}

/**
 * What is wrong with a request's body headers, or undefined when it has no body or a body to parse.
 *
 * The charset rule: RFC 8259 (section 11) registers application/json with no charset parameter and
 * requires UTF-8 between systems (section 8.1). A `charset=utf-8` says nothing more and is taken;
 * any other value is refused, not ignored, because body-parsers decode by it (UTF-16, UTF-7) and a
 * sender that names another charset has likely encoded its body in it. `utf8` is refused too: it is
 * not a name of UTF-8 in the IANA charset registry (`UTF-8`, alias `csUTF8`).
 */
export function jsonBodyRefusal(headers: IncomingHttpHeaders): JsonBodyRefusal | undefined {
  if (!hasRequestBody(headers)) return undefined;
  const contentType = headers['content-type'] ?? '';
  if (!isJsonMediaType(contentType)) return { field: 'Content-Type', message: 'Content-Type: must be application/json' };
  if (charsetsOf(contentType).some((charset) => charset !== 'utf-8')) return { field: 'Content-Type', message: 'Content-Type: the charset must be utf-8' };
  const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    return { field: 'Content-Encoding', message: 'Content-Encoding: bodies are taken as sent, without a Content-Encoding' };
  }
  return undefined;
}
