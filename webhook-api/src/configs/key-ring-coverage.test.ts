import { describe, expect, it } from 'vitest';
import { missingKeysMessage, requireStoredKeysInRing, type KeyRingOrigin } from './key-ring-coverage.ts';

const configured: KeyRingOrigin = { keyIds: ['2026-12', '2026-11'], configured: true, localKeyFile: '/srv/data/webhook-encryption.key', localKeyId: undefined };
const storeNaming = (...ids: string[]) => ({ encryptionKeyIdsInUse: () => Promise.resolve(ids) });

describe('the key ring against the stored credentials', () => {
  it('lets a process start when every stored key id is in the ring, the older ones included', async () => {
    await expect(requireStoredKeysInRing(storeNaming('2026-11', '2026-12'), configured)).resolves.toBeUndefined();
    await expect(requireStoredKeysInRing(storeNaming(), configured)).resolves.toBeUndefined();
  });

  it('refuses in one line naming the missing key id and the ring that keeps it', async () => {
    await expect(requireStoredKeysInRing(storeNaming('2026-11', '2025-01'), configured)).rejects.toThrow(
      'stored webhook credentials are encrypted with key id 2025-01, which is not in the key ring, so their deliveries could not be sent; ' +
        'keep it by listing it after the current key: WEBHOOK_ENCRYPTION_KEY=2026-12:<its base64 key>,2025-01:<its base64 key>',
    );
  });

  it('says where the generated local key is when that is the one missing', () => {
    const message = missingKeysMessage(['local-20261101'], { ...configured, localKeyId: 'local-20261101' });
    expect(message).toContain('WEBHOOK_ENCRYPTION_KEY=2026-12:<its base64 key>,local-20261101:<its base64 key>');
    expect(message).toContain('(local-20261101 is the generated local key: its line is in /srv/data/webhook-encryption.key)');
    expect(message).not.toContain('\n');
  });

  it('says the ring is the local key file alone when WEBHOOK_ENCRYPTION_KEY is not set, and names every missing id', () => {
    const message = missingKeysMessage(['2026-11', '2026-12'], { ...configured, keyIds: ['local-20261124'], configured: false, localKeyId: 'local-20261124' });
    expect(message).toContain('encrypted with key ids 2026-11, 2026-12, which are not in the key ring');
    expect(message).toContain('WEBHOOK_ENCRYPTION_KEY=local-20261124:<its base64 key>,2026-11:<its base64 key>,2026-12:<its base64 key>');
    expect(message).toContain('WEBHOOK_ENCRYPTION_KEY is not set, so the ring is the local key file /srv/data/webhook-encryption.key alone');
  });

  it('never echoes a stored value that is no key id', () => {
    const message = missingKeysMessage(['not a key id, maybe a secret'], configured);
    expect(message).toContain('(a malformed key id)');
    expect(message).not.toContain('maybe a secret');
  });
});
