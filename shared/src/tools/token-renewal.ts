// A running call's delegated token that follows the gateway's renewals (a call run as an MCP task
// outlives the token it started with). Each fresh token is checked as the call's own was, by the
// same cached caller check, and replaces the call's token only when it is valid and names the same
// person; one refused (or that cannot be checked) is dropped with a warning, and the call keeps the
// token it has. The warning never holds the token.
import type { Logger } from 'pino';
import type { CallerCheck } from '../caller/check-caller.ts';
import { isPlatformError } from '../errors/platform-error.ts';
import { clip } from '../text/short-text.ts';

/** Fresh delegated tokens for a running call, as they arrive (CallToolAsTask's renewals). */
export interface TokenRenewals {
  /** Hands each fresh token to `renew` in the order they arrive, those that came before this call first. Called once, when the call's own token has been checked. */
  listen(renew: (token: string) => void): void;
}

/** What a renewal is checked against: the call's person, the caller check, and where a refusal is logged. */
export interface RenewableTokenOptions {
  /** The token the call was checked with. */
  readonly token: string;
  /** The person the call runs for: a renewal must name the same one. */
  readonly callerId: string;
  readonly checkCaller: CallerCheck;
  readonly logger: Logger;
  /** Fields of the call repeated on a refusal's log line (request id, tool). */
  readonly logFields: Readonly<Record<string, string>>;
}

/** A call's token: the current one, and the renewal of it. */
export interface RenewableToken {
  /** The token the call holds now. */
  readonly current: () => string;
  /** Checks `token`, then holds it if it is valid for the same person; checks run one after the other, in order. */
  readonly renew: (token: string) => void;
}

/** A `RenewableToken` starting at the call's own token. */
export function createRenewableToken(options: RenewableTokenOptions): RenewableToken {
  const { callerId, checkCaller, logger, logFields } = options;
  let current = options.token;
  // One check at a time, in order: a slow check of an older token never overwrites a newer one.
  let checking = Promise.resolve();

  const check = async (token: string): Promise<void> => {
    let reason: string;
    try {
      const checked = await checkCaller(`Bearer ${token}`);
      if (checked.ok && checked.caller.id === callerId) {
        current = checked.credential.token;
        return;
      }
      reason = checked.ok ? 'it was issued for another person' : `it was refused: ${checked.description}`;
    } catch (error) {
      reason = isPlatformError(error) ? `the platform could not check it: ${error.message}` : 'its check failed';
    }
    logger.warn({ ...logFields, callerId, reason: clip(reason, 300) }, 'a renewed delegated token was dropped; the call keeps its token');
  };

  return {
    current: () => current,
    renew: (token) => {
      checking = checking.then(() => check(token));
    },
  };
}
