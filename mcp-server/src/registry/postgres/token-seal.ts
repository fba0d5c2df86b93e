// The app tokens the shared registrations' table holds, sealed. Every replica needs each app's
// newest token (the actor token of the exchanges it makes for the app); nobody who can read the
// database may use one. AES-256-GCM under a key derived (HKDF-SHA256) from the gateway's client
// secret, which every replica holds and the database never sees; the registration's id is the
// associated data, so a sealed token copied into another registration's row does not open.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface TokenSeal {
  /** `v1.` and the base64url of the nonce, the ciphertext and the tag. */
  seal(token: string, registrationId: string): string;
  /** The token, or undefined when `sealed` was not sealed under this key for this registration. */
  open(sealed: string, registrationId: string): string | undefined;
}

const version = 'v1.';
const nonceBytes = 12;
const tagBytes = 16;

/** The seal of every replica that holds `gatewayClientSecret` (MCP_GATEWAY_CLIENT_SECRET). */
export function createTokenSeal(gatewayClientSecret: string): TokenSeal {
  if (gatewayClientSecret.length === 0) throw new TypeError('createTokenSeal: the gateway client secret must not be empty');
  const key = Buffer.from(hkdfSync('sha256', gatewayClientSecret, 'platform-mcp-gateway', 'registry app token v1', 32));
  return {
    seal(token, registrationId) {
      const nonce = randomBytes(nonceBytes);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(registrationId));
      const sealed = Buffer.concat([nonce, cipher.update(token, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${version}${sealed.toString('base64url')}`;
    },
    open(sealed, registrationId) {
      if (!sealed.startsWith(version)) return undefined;
      const bytes = Buffer.from(sealed.slice(version.length), 'base64url');
      if (bytes.length < nonceBytes + tagBytes) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, nonceBytes));
        decipher.setAAD(Buffer.from(registrationId));
        decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
        return Buffer.concat([decipher.update(bytes.subarray(nonceBytes, bytes.length - tagBytes)), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
