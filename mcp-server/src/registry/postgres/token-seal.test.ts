import { describe, expect, it } from 'vitest';
import { createTokenSeal } from './token-seal.ts';

const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJmbGVldC1pbnNpZ2h0cyJ9.c2lnbmF0dXJl';

describe('the registrations’ token seal', () => {
  it('opens what it sealed for the same registration, and seals the same token differently each time', () => {
    const seal = createTokenSeal('gateway secret');
    const sealed = seal.seal(token, 'reg-1');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(token);
    expect(seal.open(sealed, 'reg-1')).toBe(token);
    expect(seal.seal(token, 'reg-1')).not.toBe(sealed);
    expect(createTokenSeal('gateway secret').open(sealed, 'reg-1')).toBe(token);
  });

  it('opens nothing under another secret, for another registration, tampered with, or never sealed', () => {
    const seal = createTokenSeal('gateway secret');
    const sealed = seal.seal(token, 'reg-1');
    expect(createTokenSeal('another secret').open(sealed, 'reg-1')).toBeUndefined();
    expect(seal.open(sealed, 'reg-2')).toBeUndefined();
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    bytes[20] = (bytes[20] ?? 0) ^ 1;
    expect(seal.open(`v1.${bytes.toString('base64url')}`, 'reg-1')).toBeUndefined();
    expect(seal.open(token, 'reg-1')).toBeUndefined();
    expect(seal.open('v1.', 'reg-1')).toBeUndefined();
    expect(seal.open('v1.AAAA', 'reg-1')).toBeUndefined();
  });

  it('refuses an empty secret', () => {
    expect(() => createTokenSeal('')).toThrow('must not be empty');
  });
});
