import { startedForTests } from '@platform/tool-sdk/testing';
import { startPlatform } from '@platform/dev-platform/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { startedApiForTests, type ApiClient, type Backend } from './harness.ts';

const platform = startedForTests(() => startPlatform());

const hook = { name: 'Start', url: 'https://receiver.example/hook', deliveryMode: 'Realtime' };

describe.each<Backend>(['SQLite', 'PostgreSQL'])('concurrent updates of one configuration on %s', (backend) => {
  const api = startedApiForTests(backend, () => platform().issuer);
  let oscar: ApiClient;
  beforeAll(async () => {
    oscar = await api().clientAs('oscar');
  });

  async function created(body: Record<string, unknown> = hook): Promise<string> {
    const result = await oscar('POST', '/v2/webhooks?companyId=1', body);
    expect(result.status).toBe(201);
    return (result.body as { id: string }).id;
  }

  it('applies both of two racing PUTs, one after the other: neither is lost', async () => {
    for (let round = 0; round < 12; round++) {
      const id = await created();
      const [a, b] = await Promise.all([
        oscar('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'A', authType: 'Bearer', authPayload: JSON.stringify({ token: 'token-a' }) }),
        oscar('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'B' }),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const stored = await api().store.getConfig(id);
      // Whatever the order, A's credentials survive B's rename (B keeps what it does not name).
      expect(stored?.authType, `round ${round}`).toBe('Bearer');
      expect(JSON.parse(api().vault.decrypt(stored?.authPayloadEncrypted ?? '', id))).toEqual({ token: 'token-a' });
      expect(['A', 'B']).toContain(stored?.name);
    }
  });

  it('never loses a credential rotation to a racing rename', async () => {
    for (let round = 0; round < 12; round++) {
      const id = await created({ ...hook, authType: 'Bearer', authPayload: JSON.stringify({ token: 'old-revoked' }) });
      await Promise.all([
        oscar('PUT', `/v2/webhooks/${id}`, { ...hook, authPayload: JSON.stringify({ token: 'new-rotated' }) }),
        oscar('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'Renamed' }),
      ]);
      const stored = await api().store.getConfig(id);
      expect(JSON.parse(api().vault.decrypt(stored?.authPayloadEncrypted ?? '', id)), `round ${round}`).toEqual({ token: 'new-rotated' });
    }
  });

  it('answers 404, not 500, to an update racing the delete of its configuration', async () => {
    for (let round = 0; round < 8; round++) {
      const id = await created();
      const [update, removal] = await Promise.all([oscar('PUT', `/v2/webhooks/${id}`, { ...hook, name: 'late' }), oscar('DELETE', `/v2/webhooks/${id}`)]);
      expect([200, 404]).toContain(update.status);
      expect(removal.status).toBe(200);
      expect(await api().store.getConfig(id)).toBeUndefined();
    }
  });
});
