// The HMAC keys of the configurations' signing secrets, decrypted once per stored secret and kept as
// key objects, at most a bounded number, the least recently used dropped first. The process holds
// the key ring that decrypts every secret anyway, so keeping the keys adds no exposure; an attempt
// then signs in about 2 µs instead of a decryption and a key import (about 25 µs).
import type { KeyObject } from 'node:crypto';
import type { DecryptCredentials } from './outgoing.ts';
import { signingKeyOf } from './signature.ts';

export interface SigningKeys {
  /** The key of a signing secret as stored (encrypted, bound to `binding`); throws what decryption or the secret's form throws. */
  keyOf(encrypted: string, binding: string): KeyObject;
}

/** Decrypts each time: what the tests and a one-off build use. */
export const uncachedSigningKeys = (decrypt: DecryptCredentials): SigningKeys => ({
  keyOf: (encrypted, binding) => signingKeyOf(decrypt(encrypted, binding)),
});

export function createSigningKeys(decrypt: DecryptCredentials, maxKeys = 10_000): SigningKeys {
  // A Map keeps insertion order: a hit moves to the end, the first entry is the least recently used.
  // Keyed by the ciphertext alone, which is unique to its encryption (a fresh IV each time): no key
  // string is built per attempt. It opens only under its binding, so another binding is a miss,
  // and decrypting under it fails as it would uncached.
  const keys = new Map<string, { readonly binding: string; readonly key: KeyObject }>();
  return {
    keyOf(encrypted, binding) {
      const known = keys.get(encrypted);
      if (known?.binding === binding) {
        keys.delete(encrypted);
        keys.set(encrypted, known);
        return known.key;
      }
      const key = signingKeyOf(decrypt(encrypted, binding));
      keys.delete(encrypted);
      keys.set(encrypted, { binding, key });
      if (keys.size > maxKeys) keys.delete(keys.keys().next().value ?? encrypted);
      return key;
    },
  };
}
