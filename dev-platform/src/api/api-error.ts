// The platform API's one error shape, `{ "error": code, "message": text }`, its catalog (each code
// with its status and a message safe to show), and its Express edge.
import { CatalogError } from '@platform/tool-sdk/internal';
import type { ErrorRequestHandler, Request } from 'express';
import type { z } from 'zod';

const apiErrors = {
  invalid_request: { status: 400, message: 'The request is invalid.' },
  invalid_token: { status: 401, message: 'A valid token issued for this service is required.' },
  forbidden: { status: 403, message: 'The caller may not do this.' },
  delegation_forbidden: { status: 403, message: 'Administration calls are refused under delegation.' },
  not_a_person: { status: 403, message: 'This call needs a person; an app token has none.' },
  not_found: { status: 404, message: 'Not found.' },
  conflict: { status: 409, message: 'It conflicts with what the platform holds.' },
  unsupported_media_type: { status: 415, message: 'The body must be uncompressed JSON in UTF-8.' },
  server_error: { status: 500, message: 'Something went wrong on the platform.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ApiErrorCode = keyof typeof apiErrors;

export class ApiError extends CatalogError<typeof apiErrors> {
  override readonly name = 'ApiError';

  constructor(code: ApiErrorCode, message?: string) {
    super(apiErrors, code, message);
  }
}

/** Parses a JSON body with a zod schema; 400 naming the field on failure. */
export function parseBody<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  const result = schema.safeParse(req.body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path.join('.') || 'body';
    throw new ApiError('invalid_request', `${field}: ${issue?.message ?? 'invalid'}`);
  }
  return result.data;
}

/** Plain decimal digits, no sign, no leading zero: Number() alone takes `0x1`, `1e3`, ` 1`, `1.0`. */
const decimalId = /^[1-9][0-9]{0,15}$/;

/** A path parameter that must be a positive whole number (a safe integer); 400 naming it otherwise. */
export function idParam(value: string | undefined, name: string): number {
  const id = value !== undefined && decimalId.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw new ApiError('invalid_request', `${name} must be a positive whole number`);
  return id;
}

/**
 * What express.json() and Express refuse with a 4xx (malformed JSON, too large, a charset or an
 * encoding it does not read), in the platform's shape. Their own messages can repeat the body
 * ("Unexpected token ... in JSON") or the path, so the answer is a fixed message per kind.
 */
function bodyRefusal(error: unknown): { status: number; code: ApiErrorCode; message: string } | undefined {
  const { status, type } = error as { status?: unknown; type?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  switch (type) {
    case 'entity.parse.failed':
      return { status: 400, code: 'invalid_request', message: 'body: is not valid JSON' };
    case 'charset.unsupported':
      return { status: 415, code: 'unsupported_media_type', message: 'Content-Type: the charset must be utf-8' };
    case 'encoding.unsupported':
      return { status: 415, code: 'unsupported_media_type', message: 'Content-Encoding: send the body uncompressed' };
    case 'entity.too.large':
      return { status, code: 'invalid_request', message: 'body: is too large' };
    default:
      return { status, code: 'invalid_request', message: 'the request cannot be read' };
  }
}

export const apiErrorHandler: ErrorRequestHandler = (error: unknown, req, res, next) => {
  if (res.headersSent) {
    next(error);
    return;
  }
  if (error instanceof ApiError) {
    // A quoted-string may hold neither a quote nor a backslash, and a header nothing but ASCII.
    if (error.status === 401)
      res.set('www-authenticate', `Bearer error="invalid_token", error_description="${error.message.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '')}"`);
    res.status(error.status).json({ error: error.code, message: error.message });
    return;
  }
  const refusal = bodyRefusal(error);
  if (refusal) {
    res.status(refusal.status).json({ error: refusal.code, message: refusal.message });
    return;
  }
  req.log.error({ err: error }, 'unexpected error');
  res.status(500).json({ error: 'server_error', message: apiErrors.server_error.message });
};
