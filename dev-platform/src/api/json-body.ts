// The one way the dev platform reads a JSON body: the SDK's JSON body rule (JSON in UTF-8, never
// compressed; 415 otherwise) before express.json, which would decode UTF-16 or UTF-7 and inflate
// gzip. A body that does not parse is refused by apiErrorHandler without being repeated.
import express, { type RequestHandler } from 'express';
import { jsonBodyRefusal, jsonBodyTypes } from '@platform/tool-sdk/internal';
import { ApiError } from './api-error.ts';

/** Refuses a body the SDK's rule refuses (media type, charset, Content-Encoding), then parses JSON up to `limit`. */
export function createJsonBodyParser(options: { limit: string }): RequestHandler[] {
  const refuseUnsupported: RequestHandler = (req, _res, next) => {
    const refusal = jsonBodyRefusal(req.headers);
    if (refusal) throw new ApiError('unsupported_media_type', refusal.message);
    next();
  };
  return [refuseUnsupported, express.json({ limit: options.limit, type: [...jsonBodyTypes], inflate: false })];
}
