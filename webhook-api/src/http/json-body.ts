// A request body as the API takes it: the SDK's one JSON body rule (JSON in UTF-8 as sent; any other
// media type, charset or Content-Encoding is 415), bounded in size, well-formed UTF-8 (the decoder
// would put U+FFFD for a bad byte, silently), and no key given twice in one object.
import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { hasRequestBody, jsonBodyRefusal, jsonBodyTypes } from '@platform/tool-sdk/internal';
import { firstDuplicateKey } from '../configs/json-duplicate-keys.ts';
import { WebhookApiError } from './errors.ts';

/** A body that gives one key twice: JSON.parse would keep the last silently, so the client's intent is unclear. */
export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';
  readonly code = 'DUPLICATE_KEY';
  /** The key given twice: named in the 400's field, never echoed in the message. */
  readonly key: string;

  constructor(key: string) {
    super('a key is given twice');
    this.key = key;
  }
}

/** A body whose bytes are not well-formed UTF-8. */
export class MalformedUtf8Error extends Error {
  override readonly name = 'MalformedUtf8Error';
  readonly code = 'MALFORMED_UTF8';

  constructor() {
    super('the body is not well-formed UTF-8');
  }
}

/** express.json's `verify`: runs on the raw bytes before they are parsed. */
function checkBytes(_req: unknown, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw new MalformedUtf8Error();
  const key = firstDuplicateKey(body.toString('utf8'));
  if (key !== undefined) throw new DuplicateKeyError(key);
}

/**
 * The checks and the parser of a JSON body of at most `limitBytes`. A request without a body (a GET,
 * most of the API's calls) passes at once: the parser's own look at it cost a tenth of a cached GET.
 */
export const jsonBody = (limitBytes: number): RequestHandler[] => {
  const parse: RequestHandler = express.json({ limit: limitBytes, strict: true, type: [...jsonBodyTypes], inflate: false, verify: checkBytes });
  return [
    (req, res, next) => {
      if (!hasRequestBody(req.headers)) {
        next();
        return;
      }
      const refusal = jsonBodyRefusal(req.headers);
      if (refusal) throw new WebhookApiError('UNSUPPORTED_MEDIA_TYPE', refusal.message, { field: refusal.field });
      parse(req, res, next);
    },
  ];
};
