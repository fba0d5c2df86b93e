// The token of an `Authorization: Bearer <token>` header value (RFC 6750 section 2.1).

// auth-scheme, one or more spaces, then a b64token; the scheme is case-insensitive (RFC 9110 11.1).
const bearer = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * Returns the bearer token of an Authorization header value, or undefined when the value is
 * missing, empty, of another scheme or malformed (spaces or other characters inside the token,
 * several credentials).
 */
export function extractBearer(headerValue: string | readonly string[] | null | undefined): string | undefined {
  if (typeof headerValue !== 'string') return undefined;
  return bearer.exec(headerValue)?.[1];
}
