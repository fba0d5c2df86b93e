// The one way the dev platform reads a JSON body: UTF-8 only and never compressed (415 otherwise),
// before express.json, which would decode UTF-16 or UTF-7 and inflate gzip. A body that does not
// parse is refused by apiErrorHandler without being repeated.
import express, { type Request, type RequestHandler } from 'express';
import { ApiError } from './api-error.ts';

const hasBody = (req: Request) => req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';

/** Every charset parameter of a Content-Type, lower-cased and unquoted. */
function charsetsOf(contentType: string | undefined): string[] {
  return [...(contentType ?? '').matchAll(/;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/gi)].map((m) => (m[1] ?? m[2] ?? '').toLowerCase());
}

/** Refuses a body in a charset other than UTF-8 or with a Content-Encoding, then parses JSON up to `limit`. */
export function createJsonBodyParser(options: { limit: string }): RequestHandler[] {
  const refuseUnsupported: RequestHandler = (req, _res, next) => {
    if (hasBody(req)) {
      const encoding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
      if (encoding !== '' && encoding !== 'identity') throw new ApiError('unsupported_media_type', 'Content-Encoding: send the body uncompressed');
      if (charsetsOf(req.headers['content-type']).some((charset) => charset !== 'utf-8')) {
        throw new ApiError('unsupported_media_type', 'Content-Type: the charset must be utf-8');
      }
    }
    next();
  };
  return [refuseUnsupported, express.json({ limit: options.limit, inflate: false })];
}
