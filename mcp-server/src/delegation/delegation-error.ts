// Why no delegated token could be had: one error type with a stable code, a message an agent can
// act on, and the cause kept for the logs. Each message completes the sentence "No delegated token
// could be obtained, so the tool was not called: ...", and never holds a token or a secret.
import { clip, oneLine } from '@platform/tool-sdk/internal';
import * as oauth from 'openid-client';

/** Every code's message; `reason` is empty or ` (what the platform said)`. */
const messages = {
  EXCHANGE_DISABLED: () =>
    'token exchange is not enabled on the platform in this environment, so the gateway cannot act for you through the tool. An administrator must enable it; retrying will not help.',
  ACTOR_REFUSED: (reason: string) =>
    `the platform did not accept the tool's app as the one acting for you${reason}. Only an administrator or the tool's operator can fix this; retrying now will not help.`,
  SUBJECT_REFUSED: (reason: string) => `the platform refused your token for delegation${reason}: your sign-in may have expired. Sign in again, then retry.`,
  GATEWAY_CLIENT_REFUSED: (reason: string) =>
    `the platform refused the MCP gateway's own client${reason}. This is a configuration problem of the gateway, for its operator to fix, not something you can change; retrying will not help until it is fixed.`,
  EXCHANGE_REFUSED: (reason: string) => `the platform refused the token exchange${reason}. Tell the gateway's operator; retrying will not help.`,
  DELEGATED_TOKEN_REFUSED: (reason: string) =>
    `the platform did not accept the delegated token it had just issued${reason}. Try again; if it persists, tell the gateway's operator.`,
  PLATFORM_UNAVAILABLE: (reason: string) =>
    `the platform's authorization server could not be reached or answered with a server error${reason}. This is an outage, not a problem with your request; try again later.`,
  PLATFORM_BAD_RESPONSE: (reason: string) =>
    `the platform's authorization server answered with something the gateway does not understand${reason}. Try again later; if it persists, tell the gateway's operator.`,
} as const satisfies Record<string, (reason: string) => string>;

export type DelegationErrorCode = keyof typeof messages;

/** Every code with its message when no reason is known. */
export const delegationErrorCodes: Readonly<Record<DelegationErrorCode, string>> = Object.freeze(
  Object.fromEntries(Object.entries(messages).map(([code, message]) => [code, message('')])) as Record<DelegationErrorCode, string>,
);

export interface DelegationErrorOptions {
  /** What the platform said or what happened, shown in parentheses; never a token or a secret. */
  readonly reason?: string;
  readonly cause?: unknown;
}

export class DelegationError extends Error {
  override readonly name = 'DelegationError';
  readonly code: DelegationErrorCode;

  constructor(code: DelegationErrorCode, options: DelegationErrorOptions = {}) {
    super(messages[code](options.reason ? ` (${options.reason})` : ''), { cause: options.cause });
    this.code = code;
  }
}

export function isDelegationError(error: unknown, code?: DelegationErrorCode): error is DelegationError {
  return error instanceof DelegationError && (code === undefined || error.code === code);
}

/** The tokens of one exchange: a platform that echoes one back is not quoted. */
export interface ExchangeTokens {
  readonly callerToken: string;
  readonly actorToken: string;
}

const gatewayRefusals = new Set(['invalid_client', 'unauthorized_client']);
const maxQuoted = 300;

/** Maps what openid-client throws during discovery or the exchange to a DelegationError. */
export function classifyExchangeError(error: unknown, appClientId: string, tokens: ExchangeTokens): DelegationError {
  if (error instanceof DelegationError) return error;
  const status = statusOf(error);
  if (status !== undefined && (status >= 500 || status === 429)) {
    return new DelegationError('PLATFORM_UNAVAILABLE', { reason: `it answered ${status}`, cause: error });
  }
  if (error instanceof oauth.ResponseBodyError) return refusal(error, appClientId, tokens);
  if (status === 401 || error instanceof oauth.WWWAuthenticateChallengeError) {
    return new DelegationError('GATEWAY_CLIENT_REFUSED', { reason: 'its credentials were not accepted', cause: error });
  }
  if (error instanceof oauth.ClientError && error.code === 'OAUTH_TIMEOUT') {
    return new DelegationError('PLATFORM_UNAVAILABLE', { reason: 'it did not answer in time', cause: error });
  }
  // fetch rejects with a bare TypeError when the connection fails; coded TypeErrors are misuse.
  const connectionFailed = error instanceof TypeError && !('code' in error);
  if (connectionFailed || (error instanceof oauth.ClientError && error.code === 'OAUTH_ABORT')) {
    return new DelegationError('PLATFORM_UNAVAILABLE', { reason: 'it could not be reached', cause: error });
  }
  return new DelegationError('PLATFORM_BAD_RESPONSE', { cause: error });
}

function refusal(error: oauth.ResponseBodyError, appClientId: string, tokens: ExchangeTokens): DelegationError {
  const said = quotable(error.error_description, tokens);
  const code = quotable(error.error, tokens);
  if (error.error === 'unsupported_grant_type') return new DelegationError('EXCHANGE_DISABLED', { cause: error });
  if (gatewayRefusals.has(error.error)) return new DelegationError('GATEWAY_CLIENT_REFUSED', { reason: code, cause: error });
  // RFC 8693 answers invalid_request for a bad subject and a bad actor alike; the description says which.
  if (/\bactor/i.test(said)) {
    return new DelegationError('ACTOR_REFUSED', { reason: `client ${appClientId}: ${said}`, cause: error });
  }
  if (/\bsubject/i.test(said) || error.error === 'invalid_grant') {
    return new DelegationError('SUBJECT_REFUSED', { reason: said || code, cause: error });
  }
  return new DelegationError('EXCHANGE_REFUSED', { reason: said ? `${code}: ${said}` : code, cause: error });
}

/** The platform's own words, short and on one line, and only when they repeat no token of the exchange. */
function quotable(text: string | undefined, tokens: ExchangeTokens): string {
  if (!text) return '';
  if ((tokens.callerToken && text.includes(tokens.callerToken)) || (tokens.actorToken && text.includes(tokens.actorToken))) return '';
  return clip(oneLine(text), maxQuoted);
}

function statusOf(error: unknown): number | undefined {
  if (error instanceof oauth.ResponseBodyError || error instanceof oauth.WWWAuthenticateChallengeError) return error.status;
  if (error instanceof oauth.ClientError && error.cause instanceof Response) return error.cause.status;
  return undefined;
}
