// The app tokens the shared registrations' table holds, sealed. Every replica needs each app's
// newest token (the actor token of the exchanges it makes for the app); nobody who can read the
// database may use one. The associated data is the rest of the row (row-binding.ts), so a sealed
// token copied into another row, or left in a row whose fields were changed, does not open (sealed-box.ts).
import { createSealedBox } from '../../sealed-box.ts';

export interface TokenSeal {
  /** `v1.` and the base64url of the nonce, the ciphertext and the tag. */
  seal(token: string, binding: string): string;
  /** The token, or undefined when `sealed` was not sealed under this key with this binding. */
  open(sealed: string, binding: string): string | undefined;
}

/** The seal of every replica that holds `gatewayClientSecret` (MCP_GATEWAY_CLIENT_SECRET). */
export function createTokenSeal(gatewayClientSecret: string): TokenSeal {
  if (gatewayClientSecret.length === 0) throw new TypeError('createTokenSeal: the gateway client secret must not be empty');
  return createSealedBox(gatewayClientSecret, 'registry app token v1');
}
