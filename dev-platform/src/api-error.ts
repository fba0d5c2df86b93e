// The platform API's one error shape, `{ "error": code, "message": text }`, and its Express edge.
import type { ErrorRequestHandler, Request } from 'express';
import type { z } from 'zod';

export const apiErrors = {
  invalid_request: 400,
  invalid_token: 401,
  forbidden: 403,
  delegation_forbidden: 403,
  not_a_person: 403,
  not_found: 404,
} as const;

export type ApiErrorCode = keyof typeof apiErrors;

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ApiErrorCode;
  readonly status: number;

  constructor(code: ApiErrorCode, message: string) {
    super(message);
    this.code = code;
    this.status = apiErrors[code];
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

/** A path parameter that must be a positive whole number; 400 naming it otherwise. */
export function idParam(value: string | undefined, name: string): number {
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id <= 0) throw new ApiError('invalid_request', `${name} must be a positive whole number`);
  return id;
}

export const apiErrorHandler: ErrorRequestHandler = (error: unknown, req, res, next) => {
  if (res.headersSent) {
    next(error);
    return;
  }
  if (error instanceof ApiError) {
    if (error.status === 401) res.set('www-authenticate', `Bearer error="invalid_token", error_description="${error.message}"`);
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
  res.status(500).json({ error: 'server_error', message: 'Something went wrong on the platform.' });
};
