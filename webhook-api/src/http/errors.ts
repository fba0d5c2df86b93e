// The webhook API's one error type and its catalog: each code with its HTTP status and a message
// safe to show, kept together; a thrown error may say more (naming the field), and its cause is
// kept for the logs only.
import { CatalogError } from '@platform/tool-sdk/internal';

export const errorCatalog = {
  VALIDATION_FAILED: { status: 400, message: 'The request is invalid; the message and `field` name what to fix.' },
  UNAUTHENTICATED: { status: 401, message: 'AuthVersion must be V0.0.1, and the token present, valid, unexpired and issued for this API.' },
  FORBIDDEN: { status: 403, message: 'The token is valid, but Device Overview View/Manage is missing on the owning company.' },
  FEATURE_DISABLED: {
    status: 403,
    message: 'The webhook feature is not enabled in this environment; no webhook can be configured or delivered here.',
  },
  NOT_FOUND: { status: 404, message: 'The company, configuration, device, link or route was not found, or is not within the caller’s company.' },
  CONFLICT: {
    status: 409,
    message:
      'The device is already linked, an identical scope is already on the link, or a delivery cannot be sent again or now (still queued, being sent, or delivered).',
  },
  LIMIT_REACHED: { status: 409, message: 'A documented limit (configurations per company, devices per configuration, scopes per link) is reached.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'The path does not take this method; the Allow header lists those it takes.' },
  PRECONDITION_FAILED: { status: 412, message: 'The resource has changed since the version If-Match names; read it again.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The body is larger than the endpoint takes (64 kB on /v2/webhooks).' },
  TOO_MANY_REQUESTS: { status: 429, message: 'Too many of these requests are under way at once; try again after Retry-After seconds.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The body must be sent as Content-Type: application/json.' },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request headers are too large.' },
  INTERNAL: { status: 500, message: 'Something went wrong on our side.' },
  PLATFORM_BAD_RESPONSE: { status: 502, message: 'The platform answered unexpectedly; try again later.' },
  PLATFORM_UNAVAILABLE: { status: 503, message: 'The platform could not be reached to check the caller; try again.' },
  STORE_UNAVAILABLE: { status: 503, message: 'The webhook store could not be reached; try again.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalog;

export const errorCodes = Object.keys(errorCatalog) as [ErrorCode, ...ErrorCode[]];

/** The body of every error response. */
export interface ErrorBody {
  readonly error: { readonly code: ErrorCode; readonly message: string; readonly field?: string; readonly hint?: string };
}

export class WebhookApiError extends CatalogError<typeof errorCatalog> {
  override readonly name = 'WebhookApiError';
  /** The request field the error is about, when there is one. */
  readonly field: string | undefined;
  /** What to do about it, when the message alone would leave the client guessing. */
  readonly hint: string | undefined;

  /** `message` defaults to the catalog's; it is shown to the client, so it never holds a secret. */
  constructor(code: ErrorCode, message?: string, options: { field?: string; hint?: string; cause?: unknown } = {}) {
    super(errorCatalog, code, message, { cause: options.cause });
    this.field = options.field;
    this.hint = options.hint;
  }

  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.field !== undefined && { field: this.field }),
        ...(this.hint !== undefined && { hint: this.hint }),
      },
    };
  }
}

export const invalid = (field: string, message: string) => new WebhookApiError('VALIDATION_FAILED', `${field}: ${message}`, { field });
export const notFound = (what: string) => new WebhookApiError('NOT_FOUND', `${what} not found`);
