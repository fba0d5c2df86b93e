// Standard Webhooks signatures: `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`
// keyed with the secret's bytes (the base64 after `whsec_`); one per secret, space-separated, while
// a rotation overlaps.
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

const prefix = 'whsec_';

/** Whether `secret` is `whsec_` and a base64 key of at least 24 bytes. */
export const isSigningSecret = (secret: string) => /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/.test(secret);

/** The HMAC key of a `whsec_` secret, imported once: signing with a key object costs a fifth of importing the bytes each time. */
export function signingKeyOf(secret: string): KeyObject {
  if (!isSigningSecret(secret)) throw new TypeError('a signing secret is whsec_ and a base64 key');
  return createSecretKey(Buffer.from(secret.slice(prefix.length), 'base64'));
}

export function signatureHeader(keys: readonly KeyObject[], webhookId: string, timestampSeconds: number, body: string): string {
  const signed = `${webhookId}.${timestampSeconds}.${body}`;
  return keys.map((key) => `v1,${createHmac('sha256', key).update(signed).digest('base64')}`).join(' ');
}
