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
  const keys = new Map<string, KeyObject>();
  return {
    keyOf(encrypted, binding) {
      // A ciphertext is unique to its encryption (a fresh IV each time), and opens only under its binding.
      const id = `${binding}\n${encrypted}`;
      const known = keys.get(id);
      if (known) {
        keys.delete(id);
        keys.set(id, known);
        return known;
      }
      const key = signingKeyOf(decrypt(encrypted, binding));
      keys.set(id, key);
      if (keys.size > maxKeys) keys.delete(keys.keys().next().value ?? id);
      return key;
    },
  };
}
