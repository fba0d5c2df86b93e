import { describe, expect, it } from 'vitest';
import { CredentialVault } from './credential-vault.ts';
import {
  firstSigningSecrets,
  maxSignaturesPerDelivery,
  rotatedSigningSecrets,
  rotationOverlapMs,
  RotationTooSoonError,
  signingSecretsAt,
} from './signing-secrets.ts';

const vault = new CredentialVault([{ id: 'k', key: Buffer.alloc(32, 7) }]);
const t0 = Date.parse('2026-11-22T12:00:00.000Z');

describe('signing secret rotation', () => {
  it('keeps the replaced secret signing for 24 hours, and refuses another rotation until then, naming the time', () => {
    const first = firstSigningSecrets(vault, 'c');
    const second = rotatedSigningSecrets(vault, 'c', first, t0);
    expect(second).toMatchObject({ previous: first.current, previousUntil: t0 + rotationOverlapMs });
    expect(signingSecretsAt(second, t0 + rotationOverlapMs - 1)).toEqual([second.current, first.current]);
    for (const at of [t0 + 1, t0 + 20_000, t0 + rotationOverlapMs - 1]) {
      expect(() => rotatedSigningSecrets(vault, 'c', second, at)).toThrow(RotationTooSoonError);
    }
    try {
      rotatedSigningSecrets(vault, 'c', second, t0 + 20_000);
    } catch (error) {
      expect((error as RotationTooSoonError).allowedFrom).toBe(t0 + rotationOverlapMs);
      expect((error as Error).message).toBe('the signing secret may be rotated again from 2026-11-23T12:00:00.000Z');
    }
  });

  it('rotates again once the grace is over, and a delivery never carries more than the stated number of signatures', () => {
    let secrets = firstSigningSecrets(vault, 'c');
    let now = t0;
    for (let round = 0; round < 5; round += 1) {
      secrets = rotatedSigningSecrets(vault, 'c', secrets, now);
      expect(signingSecretsAt(secrets, now).length).toBeLessThanOrEqual(maxSignaturesPerDelivery);
      now += rotationOverlapMs;
      expect(signingSecretsAt(secrets, now)).toEqual([secrets.current]);
    }
  });
});
