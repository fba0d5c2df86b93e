// The credential of an Authorization header value: `Bearer <token>` (RFC 6750 section 2.1), or the
// platform's `ApiToken <token>` for a user's API tokens.

/** The Authorization schemes the platform API takes: OAuth bearer tokens and a user's API tokens. */
export type CredentialScheme = 'Bearer' | 'ApiToken';

/** A credential read from an `Authorization` header: its scheme and token. */
export interface Credential {
  readonly scheme: CredentialScheme;
  readonly token: string;
}

// auth-scheme, one or more spaces, then a b64token; the scheme is case-insensitive (RFC 9110 11.1).
// Spelled out letter by letter rather than with the i flag, under which the token's character class
// (a JWT is about a kilobyte) is matched case-folded at twice the cost.
const credential = /^([Bb][Ee][Aa][Rr][Ee][Rr]|[Aa][Pp][Ii][Tt][Oo][Kk][Ee][Nn]) +([A-Za-z0-9\-._~+/]+=*) *$/;

/**
 * The scheme and token of an Authorization header; undefined for anything else, malformed, or
 * several headers (a list of more than one value: which one counts would depend on the reader).
 */
export function parseCredential(headerValue: string | readonly string[] | null | undefined): Credential | undefined {
  const value = typeof headerValue === 'string' ? headerValue : headerValue?.length === 1 ? headerValue[0] : undefined;
  if (value === undefined) return undefined;
  const match = credential.exec(value);
  if (!match?.[1] || !match[2]) return undefined;
  return { scheme: match[1].toLowerCase() === 'bearer' ? 'Bearer' : 'ApiToken', token: match[2] };
}

/**
 * Returns the bearer token of an Authorization header value, or undefined when the value is
 * missing, empty, of another scheme or malformed (spaces or other characters inside the token,
 * several credentials).
 */
export function extractBearer(headerValue: string | readonly string[] | null | undefined): string | undefined {
  const parsed = parseCredential(headerValue);
  return parsed?.scheme === 'Bearer' ? parsed.token : undefined;
}
