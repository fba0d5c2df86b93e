// The webhook API's one error type and catalog: a stable code, the HTTP status, a message that
// names the field, and the cause kept for the logs only.

export const errorCatalog = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL: 500,
  PLATFORM_BAD_RESPONSE: 502,
  PLATFORM_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorCatalog;

/** The body of every error response. */
export interface ErrorBody {
  readonly error: { readonly code: ErrorCode; readonly message: string; readonly field?: string };
}

export class WebhookApiError extends Error {
  override readonly name = 'WebhookApiError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | undefined;

  constructor(code: ErrorCode, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.status = errorCatalog[code];
    this.field = options.field;
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.field !== undefined && { field: this.field }) } };
  }
}

export const invalid = (field: string, message: string) => new WebhookApiError('VALIDATION_FAILED', `${field}: ${message}`, { field });
export const notFound = (what: string) => new WebhookApiError('NOT_FOUND', `${what} not found`);
