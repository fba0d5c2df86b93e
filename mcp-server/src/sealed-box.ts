// Values the gateway hands to others to keep and later takes back: sealed with AES-256-GCM under a
// key derived (HKDF-SHA256) from the gateway's client secret, which every replica holds and nobody
// else does, one key per purpose. The associated data binds a sealed value to where it belongs (a
// registration, a caller's call of a tool): moved anywhere else, it does not open.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface SealedBox {
  /** `v1.` and the base64url of the nonce, the ciphertext and the tag. */
  seal(plaintext: string, associatedData: string): string;
  /** The plaintext, or undefined when `sealed` was not sealed under this key with this associated data. */
  open(sealed: string, associatedData: string): string | undefined;
}

const version = 'v1.';
const nonceBytes = 12;
const tagBytes = 16;

/** The box of every replica that holds `gatewayClientSecret` (MCP_GATEWAY_CLIENT_SECRET), for one `purpose` (the HKDF info). */
export function createSealedBox(gatewayClientSecret: string, purpose: string): SealedBox {
  if (gatewayClientSecret.length === 0) throw new TypeError('createSealedBox: the gateway client secret must not be empty');
  const key = Buffer.from(hkdfSync('sha256', gatewayClientSecret, 'platform-mcp-gateway', purpose, 32));
  return {
    seal(plaintext, associatedData) {
      const nonce = randomBytes(nonceBytes);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(associatedData));
      const sealed = Buffer.concat([nonce, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${version}${sealed.toString('base64url')}`;
    },
    open(sealed, associatedData) {
      if (!sealed.startsWith(version)) return undefined;
      const bytes = Buffer.from(sealed.slice(version.length), 'base64url');
      if (bytes.length < nonceBytes + tagBytes) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, nonceBytes));
        decipher.setAAD(Buffer.from(associatedData));
        decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
        return Buffer.concat([decipher.update(bytes.subarray(nonceBytes, bytes.length - tagBytes)), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
