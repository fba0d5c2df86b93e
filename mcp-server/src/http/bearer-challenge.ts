// The answers of a resource server that refuses a request, framework-free: 401 with the
// `WWW-Authenticate: Bearer` challenge that starts an MCP client's OAuth flow (RFC 6750, RFC 9728's
// `resource_metadata`), and 503 when the platform that checks tokens cannot be reached (an outage
// is never reported as the caller's fault).

export interface Refusal {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: { readonly error: string; readonly error_description: string };
}

export interface ChallengeOptions {
  readonly resourceMetadataUrl: string;
  readonly scope: string;
}

/** RFC 6750's error_description charset: printable ASCII without `"` and `\`. */
const quotable = (text: string) => text.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '');

/**
 * 401 for a request without a usable token. `error` is undefined when no credential was sent
 * (RFC 6750 section 3.1: then the challenge carries no error code).
 */
export function unauthorized(error: 'invalid_request' | 'invalid_token' | undefined, description: string, options: ChallengeOptions): Refusal {
  const parameters = [`resource_metadata="${quotable(options.resourceMetadataUrl)}"`, `scope="${quotable(options.scope)}"`];
  if (error) parameters.unshift(`error="${error}"`, `error_description="${quotable(description)}"`);
  return {
    status: 401,
    headers: { 'www-authenticate': `Bearer ${parameters.join(', ')}` },
    body: { error: error ?? 'invalid_token', error_description: description },
  };
}

/** 503: the platform could not check the token; the caller did nothing wrong. */
export function platformUnavailable(retryAfterSeconds = 5): Refusal {
  return {
    status: 503,
    headers: { 'retry-after': String(retryAfterSeconds) },
    body: { error: 'temporarily_unavailable', error_description: 'The platform could not be reached to check the access token; try again shortly.' },
  };
}
