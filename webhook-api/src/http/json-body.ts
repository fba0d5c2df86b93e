// A request body as the API takes it: JSON in UTF-8 as sent (any other media type, charset or
// Content-Encoding is 415), bounded in size, and no key given twice in one object.
import express, { type Request, type RequestHandler } from 'express';
import { firstDuplicateKey } from '../configs/json-duplicate-keys.ts';
import { WebhookApiError } from './errors.ts';

const jsonTypes = ['application/json', 'application/*+json'];

/** A body that gives one key twice: JSON.parse would keep the last silently, so the client's intent is unclear. */
export class DuplicateKeyError extends Error {
  readonly key: string;

  constructor(key: string) {
    super('a key is given twice');
    this.key = key;
  }
}

/** express.json's `verify`: runs on the raw bytes before they are parsed. */
function refuseDuplicateKeys(_req: unknown, _res: unknown, body: Buffer): void {
  const key = firstDuplicateKey(body.toString('utf8'));
  if (key !== undefined) throw new DuplicateKeyError(key);
}

/** The charset parameter of a Content-Type, lower-cased; undefined when there is none. */
const charsetOf = (contentType: string | undefined) => /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase();

/**
 * A non-empty body must be JSON in UTF-8, as it is sent: any other media type, charset or
 * Content-Encoding is refused with 415 rather than read as "no body" or decoded some other way.
 */
function requireJsonBody(req: Request): void {
  if (!req.is(jsonTypes)) throw new WebhookApiError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type: must be application/json', { field: 'Content-Type' });
  const charset = charsetOf(req.headers['content-type']);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new WebhookApiError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type: the charset must be utf-8', { field: 'Content-Type' });
  }
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw new WebhookApiError('UNSUPPORTED_MEDIA_TYPE', 'Content-Encoding: bodies are taken as sent, without a Content-Encoding', {
      field: 'Content-Encoding',
    });
  }
}

/**
 * The checks and the parser of a JSON body of at most `limitBytes`. A request without a body (a GET,
 * most of the API's calls) passes at once: the parser's own look at it cost a tenth of a cached GET.
 */
export const jsonBody = (limitBytes: number): RequestHandler[] => {
  const parse: RequestHandler = express.json({ limit: limitBytes, strict: true, type: jsonTypes, inflate: false, verify: refuseDuplicateKeys });
  return [
    (req, res, next) => {
      const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
      if (!hasBody) {
        next();
        return;
      }
      requireJsonBody(req);
      parse(req, res, next);
    },
  ];
};
