// Webhook credentials (authPayload) at rest: AES-256-GCM, a fresh 96-bit IV each time, the
// configuration id as associated data (a ciphertext cannot be moved to another row), and the key id
// in the stored value so keys can be rotated: the first key of the ring encrypts, every key decrypts.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface EncryptionKey {
  readonly id: string;
  /** 32 bytes. */
  readonly key: Buffer;
}

const version = 'v1';

export class CredentialVault {
  readonly #current: EncryptionKey;
  readonly #keys: ReadonlyMap<string, Buffer>;

  constructor(ring: readonly EncryptionKey[]) {
    const [current] = ring;
    if (!current) throw new TypeError('CredentialVault: at least one key is needed');
    for (const { id, key } of ring) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new TypeError(`CredentialVault: key id ${JSON.stringify(id)} must be letters, digits, _ or -`);
      if (key.length !== 32) throw new TypeError(`CredentialVault: key ${id} must be 32 bytes (got ${key.length})`);
    }
    this.#current = current;
    this.#keys = new Map(ring.map(({ id, key }) => [id, key]));
  }

  get currentKeyId(): string {
    return this.#current.id;
  }

  encrypt(plaintext: string, boundTo: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, iv);
    cipher.setAAD(Buffer.from(boundTo, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [version, this.#current.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  decrypt(stored: string, boundTo: string): string {
    const [v, keyId = '', iv = '', tag = '', ciphertext = ''] = stored.split('.');
    if (v !== version) throw new Error('unknown credential format');
    const key = this.#keys.get(keyId);
    if (!key) throw new Error(`credential encrypted with key ${keyId}, which is not in the key ring`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** Parses `WEBHOOK_ENCRYPTION_KEY`: `id:base64key[,id:base64key...]`, current key first. */
export function parseKeyRing(value: string): EncryptionKey[] {
  return value.split(',').map((part, index) => {
    const separator = part.indexOf(':');
    if (separator <= 0) throw new TypeError(`WEBHOOK_ENCRYPTION_KEY: entry ${index + 1} must be id:base64key`);
    const key = Buffer.from(part.slice(separator + 1).trim(), 'base64');
    return { id: part.slice(0, separator).trim(), key };
  });
}
