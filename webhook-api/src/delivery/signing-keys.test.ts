import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CredentialVault } from '../configs/credential-vault.ts';
import { createSigningKeys } from './signing-keys.ts';

const vault = new CredentialVault([{ id: 'k1', key: randomBytes(32) }]);
const secret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('the signing keys', () => {
  it('decrypts a stored secret once, and again only after it was dropped as the least recently used', () => {
    const decrypted: string[] = [];
    const keys = createSigningKeys((stored, boundTo) => {
      decrypted.push(boundTo);
      return vault.decrypt(stored, boundTo);
    }, 2);
    const [a, b, c] = ['a', 'b', 'c'].map((id) => ({ id, stored: vault.encrypt(secret(), id) }));
    if (!a || !b || !c) throw new Error('fixtures');
    const first = keys.keyOf(a.stored, a.id);
    expect(keys.keyOf(a.stored, a.id)).toBe(first);
    keys.keyOf(b.stored, b.id);
    keys.keyOf(a.stored, a.id); // a is the most recent again
    keys.keyOf(c.stored, c.id); // b goes
    keys.keyOf(a.stored, a.id);
    keys.keyOf(b.stored, b.id);
    expect(decrypted).toEqual(['a', 'b', 'c', 'b']);
  });

  it('opens a secret only under its own binding, and takes nothing but a whsec_ secret', () => {
    const keys = createSigningKeys((stored, boundTo) => vault.decrypt(stored, boundTo));
    const stored = vault.encrypt(secret(), 'a');
    keys.keyOf(stored, 'a');
    expect(() => keys.keyOf(stored, 'b')).toThrow();
    expect(() => keys.keyOf(vault.encrypt('not-a-secret', 'a'), 'a')).toThrow('a signing secret is whsec_ and a base64 key');
  });
});
