// The platform API's one error shape, `{ "error": code, "message": text }`, its catalog (each code
// with its status and a message safe to show), and its Express edge.
import { CatalogError } from '@platform/shared';
import type { ErrorRequestHandler, Request } from 'express';
import type { z } from 'zod';

export const apiErrors = {
  invalid_request: { status: 400, message: 'The request is invalid.' },
  invalid_token: { status: 401, message: 'A valid token issued for this service is required.' },
  forbidden: { status: 403, message: 'The caller may not do this.' },
  delegation_forbidden: { status: 403, message: 'Administration calls are refused under delegation.' },
  not_a_person: { status: 403, message: 'This call needs a person; an app token has none.' },
  not_found: { status: 404, message: 'Not found.' },
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
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // express.json() refusals: malformed JSON, too large, wrong charset.
    res.status(status).json({ error: 'invalid_request', message: (error as Error).message });
    return;
  }
  req.log.error({ err: error }, 'unexpected error');
  res.status(500).json({ error: 'server_error', message: apiErrors.server_error.message });
};
