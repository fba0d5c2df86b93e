// At start-up every key id a stored credential names must be in the key ring: a credential whose
// key is gone cannot be decrypted, and every delivery of its configuration would be dropped. The
// process refuses to start instead, in one line naming the missing key id and how to keep it.
import type { WebhookStore } from '../store/webhook-store.ts';

/** The key ring a process opened, and where it came from: what the refusal tells the operator. */
export interface KeyRingOrigin {
  /** Every key id of the ring, the current one first. */
  readonly keyIds: readonly string[];
  /** Whether WEBHOOK_ENCRYPTION_KEY set the ring (else it is the generated local key file's). */
  readonly configured: boolean;
  /** The generated local key file, and the id of the key in it when it exists. */
  readonly localKeyFile: string;
  readonly localKeyId: string | undefined;
}

const keyIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

/** Throws the one-line refusal when a stored credential names a key id the ring lacks. */
export async function requireStoredKeysInRing(store: Pick<WebhookStore, 'encryptionKeyIdsInUse'>, ring: KeyRingOrigin): Promise<void> {
  const missing = (await store.encryptionKeyIdsInUse()).filter((id) => !ring.keyIds.includes(id));
  if (missing.length > 0) throw new Error(missingKeysMessage(missing, ring));
}

/** Names each missing key id (a stored value that is no key id is not echoed) and the ring that keeps them. */
export function missingKeysMessage(missing: readonly string[], ring: KeyRingOrigin): string {
  const ids = missing.map((id) => (keyIdPattern.test(id) ? id : '(a malformed key id)'));
  const [current = 'new-id'] = ring.keyIds;
  const named = ids.length === 1 ? `key id ${ids[0] ?? ''}, which is` : `key ids ${ids.join(', ')}, which are`;
  const kept = ids.map((id) => `${id}:<its base64 key>`).join(',');
  const notes = [
    ring.localKeyId !== undefined && missing.includes(ring.localKeyId) && `${ring.localKeyId} is the generated local key: its line is in ${ring.localKeyFile}`,
    !ring.configured && `WEBHOOK_ENCRYPTION_KEY is not set, so the ring is the local key file ${ring.localKeyFile} alone`,
  ].filter((note): note is string => typeof note === 'string');
  return (
    `stored webhook credentials are encrypted with ${named} not in the key ring, so their deliveries could not be sent; ` +
    `keep ${ids.length === 1 ? 'it' : 'them'} by listing ${ids.length === 1 ? 'it' : 'them'} after the current key: ` +
    `WEBHOOK_ENCRYPTION_KEY=${current}:<its base64 key>,${kept}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`
  );
}
