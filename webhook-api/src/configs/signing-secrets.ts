// A configuration's signing secret (Standard Webhooks): `whsec_` and the base64 of 32 random bytes,
// made when the configuration is created, stored encrypted like its credentials (bound to the
// configuration and to this use, so it cannot be swapped with them), shown to a manager on request,
// and rotated with a day's overlap in which deliveries carry a signature by each secret; another
// rotation waits until that day is over, so no receiver loses a secret it was given within the day.
import { randomBytes } from 'node:crypto';
import type { SigningSecrets } from '../store/records.ts';
import type { CredentialVault } from './credential-vault.ts';

/** How long the secret a rotation replaced still signs deliveries, so receivers can switch over. */
export const rotationOverlapMs = 24 * 60 * 60 * 1000;

const prefix = 'whsec_';

export const newSigningSecret = (): string => `${prefix}${randomBytes(32).toString('base64')}`;

/** What a signing secret's ciphertext is bound to: its configuration, and this use. */
export const signingSecretBinding = (configId: string) => `${configId}#signing-secret`;

/** The signing secrets of a new configuration: one, made now. */
export const firstSigningSecrets = (vault: CredentialVault, configId: string): SigningSecrets => ({
  current: vault.encrypt(newSigningSecret(), signingSecretBinding(configId)),
  previous: null,
  previousUntil: null,
});

/** A delivery carries at most this many signatures: the current secret's, and the one it replaced while its day lasts. */
export const maxSignaturesPerDelivery = 2;

/**
 * A rotation asked for while the secret the last one replaced still signs: refused, so that every
 * secret rotated away within the last day keeps signing (a receiver holding it keeps verifying)
 * and a delivery carries at most two signatures.
 */
export class RotationTooSoonError extends Error {
  readonly code = 'ROTATION_TOO_SOON';
  /** When the replaced secret stops signing (epoch ms): a rotation may happen from then on. */
  readonly allowedFrom: number;

  constructor(allowedFrom: number) {
    super(`the signing secret may be rotated again from ${new Date(allowedFrom).toISOString()}`);
    this.name = 'RotationTooSoonError';
    this.allowedFrom = allowedFrom;
  }
}

/**
 * After a rotation at `now`: a new current secret; the one it replaces signs too for a day. Throws
 * RotationTooSoonError while the secret an earlier rotation replaced still signs.
 */
export function rotatedSigningSecrets(vault: CredentialVault, configId: string, current: SigningSecrets, now: number): SigningSecrets {
  if (current.previous !== null && current.previousUntil !== null && now < current.previousUntil) throw new RotationTooSoonError(current.previousUntil);
  return { current: vault.encrypt(newSigningSecret(), signingSecretBinding(configId)), previous: current.current, previousUntil: now + rotationOverlapMs };
}

/** The encrypted secrets that sign a delivery made at `now`: the current one, then the previous while its day lasts. */
export function signingSecretsAt(secrets: SigningSecrets, now: number): string[] {
  const { current, previous, previousUntil } = secrets;
  return previous !== null && previousUntil !== null && now < previousUntil ? [current, previous] : [current];
}
