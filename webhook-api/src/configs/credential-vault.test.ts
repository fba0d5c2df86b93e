import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@platform/tool-sdk';
import { captureLogs } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { CredentialVault, parseKeyRing } from './credential-vault.ts';
import { loadEncryptionKeys } from './encryption-keys.ts';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe('CredentialVault', () => {
  it('encrypts with AES-256-GCM under the current key id, with a fresh IV each time', () => {
    const vault = new CredentialVault([key('2026-11')]);
    const first = vault.encrypt('{"token":"abc"}', 'config-1');
    expect(first).toMatch(/^v1\.2026-11\./);
    expect(first).not.toContain('abc');
    expect(vault.encrypt('{"token":"abc"}', 'config-1')).not.toBe(first);
    expect(vault.decrypt(first, 'config-1')).toBe('{"token":"abc"}');
  });

  it('binds a ciphertext to its configuration and detects tampering', () => {
    const vault = new CredentialVault([key('k')]);
    const sealed = vault.encrypt('secret', 'config-1');
    expect(() => vault.decrypt(sealed, 'config-2')).toThrow();
    const parts = sealed.split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => vault.decrypt(parts.join('.'), 'config-1')).toThrow();
  });

  it('rotates: a new current key encrypts, older keys still decrypt, a removed key is named', () => {
    const old = key('2026-01');
    const sealedWithOld = new CredentialVault([old]).encrypt('secret', 'c');
    const rotated = new CredentialVault([key('2026-11'), old]);
    expect(rotated.decrypt(sealedWithOld, 'c')).toBe('secret');
    expect(rotated.encrypt('secret', 'c')).toMatch(/^v1\.2026-11\./);
    expect(() => new CredentialVault([key('2026-11')]).decrypt(sealedWithOld, 'c')).toThrow('2026-01');
  });

  it('parses WEBHOOK_ENCRYPTION_KEY and refuses bad keys', () => {
    const a = randomBytes(32).toString('base64');
    const b = randomBytes(32).toString('base64');
    expect(parseKeyRing(`new:${a},old:${b}`).map((k) => k.id)).toEqual(['new', 'old']);
    expect(() => parseKeyRing('no-separator')).toThrow('WEBHOOK_ENCRYPTION_KEY entry 1 must be id:base64key');
    const short = randomBytes(16).toString('base64');
    expect(() => parseKeyRing(`new:${a},short:${short}`)).toThrow('WEBHOOK_ENCRYPTION_KEY entry 2 must hold 32 random bytes');
    expect(() => parseKeyRing(`k:${a.slice(0, 20)}!!${a.slice(22)}`)).toThrow('32 random bytes');
    expect(() => parseKeyRing(`bad id:${a}`)).toThrow('key id');
    expect(() => parseKeyRing(`k:${a},k:${b}`)).toThrow('twice');
  });

  it('generates a local key file with mode 0600 when no key is configured, and warns', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'keys-')), 'data');
    const { lines, destination } = captureLogs();
    const logger = createLogger({ name: 't', destination });
    const ring = loadEncryptionKeys({ configured: undefined, dataDir, logger });
    const file = join(dataDir, 'webhook-encryption.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(ring[0]?.key).toHaveLength(32);
    expect(loadEncryptionKeys({ configured: undefined, dataDir, logger })[0]?.key.equals(ring[0]?.key ?? Buffer.alloc(0))).toBe(true);
    expect(lines.join('')).toContain('WEBHOOK_ENCRYPTION_KEY is not set');
    expect(lines.join('')).not.toContain(readFileSync(file, 'utf8').split(':')[1]?.trim() ?? 'x');
  });
});
