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

  /** Every key id the ring holds, the current one first: what stored credentials may name. */
  get keyIds(): readonly string[] {
    return [...this.#keys.keys()];
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

const keyIdPattern = /^[A-Za-z0-9_-]{1,64}$/;
const base64Pattern = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * Parses a key ring, `id:base64key[,id:base64key...]`, current key first. A bad entry throws a
 * message naming `source` and the entry's position, never the key.
 */
export function parseKeyRing(value: string, source = 'WEBHOOK_ENCRYPTION_KEY'): EncryptionKey[] {
  const entries = value.split(',').map((part) => part.trim());
  const ring = entries.map((part, index) => {
    const where = `${source} entry ${index + 1}`;
    const separator = part.indexOf(':');
    if (separator <= 0) throw new TypeError(`${where} must be id:base64key`);
    const id = part.slice(0, separator).trim();
    const encoded = part.slice(separator + 1).trim();
    if (!keyIdPattern.test(id)) throw new TypeError(`${where} has a key id that is not 1 to 64 letters, digits, _ or -`);
    const key = Buffer.from(encoded, 'base64');
    if (!base64Pattern.test(encoded) || key.length !== 32)
      throw new TypeError(`${where} must hold 32 random bytes in base64 (make one with: openssl rand -base64 32)`);
    return { id, key };
  });
  const ids = new Set(ring.map((k) => k.id));
  if (ids.size !== ring.length) throw new TypeError(`${source} names a key id twice`);
  return ring;
}
