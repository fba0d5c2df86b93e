// Standard Webhooks signatures: `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`
// keyed with the secret's bytes (the base64 after `whsec_`); one per secret, space-separated, while
// a rotation overlaps.
import { createHmac } from 'node:crypto';

const prefix = 'whsec_';

/** Whether `secret` is `whsec_` and a base64 key of at least 24 bytes. */
export const isSigningSecret = (secret: string) => /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/.test(secret);

/** The key bytes of a `whsec_` secret. */
function keyOf(secret: string): Buffer {
  if (!isSigningSecret(secret)) throw new TypeError('a signing secret is whsec_ and a base64 key');
  return Buffer.from(secret.slice(prefix.length), 'base64');
}

export function signatureHeader(secrets: readonly string[], webhookId: string, timestampSeconds: number, body: string): string {
  const signed = `${webhookId}.${timestampSeconds}.${body}`;
  return secrets.map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(signed).digest('base64')}`).join(' ');
}
