import { describe, expect, it, vi } from 'vitest';
import { createProviderStore } from './provider-store.ts';

describe('the Client model', () => {
  it('is the registered clients, and answers for any other id from resolveClient', async () => {
    const store = createProviderStore({ resolveClient: (id) => Promise.resolve(id.startsWith('https://') ? { client_id: id } : undefined) });
    await store('Client').upsert('c1', { client_id: 'c1' });
    expect(await store('Client').find('c1')).toEqual({ client_id: 'c1' });
    expect(await store('Client').find('https://app.example/client.json')).toEqual({ client_id: 'https://app.example/client.json' });
    expect(await store('Client').find('c2')).toBeUndefined();
  });
});

describe('everything else the authorization server keeps', () => {
  it('expires with the lifetime it was given', async () => {
    // Fake timers move the store's clock and fire the cache's own timers (its purge, its cached now).
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    try {
      const codes = createProviderStore({ clock: () => Date.now() })('AuthorizationCode');
      await codes.upsert('a', { grantId: 'g' }, 60);
      vi.advanceTimersByTime(60_000);
      expect(await codes.find('a')).toEqual({ grantId: 'g' });
      vi.advanceTimersByTime(1);
      expect(await codes.find('a')).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('marks a consumed entry with the time it was consumed', async () => {
    const codes = createProviderStore()('AuthorizationCode');
    await codes.upsert('a', {}, 60);
    await codes.consume('a');
    expect((await codes.find('a'))?.consumed).toBeCloseTo(Date.now() / 1000, -1);
  });

  it('finds a session by its uid, until the session is destroyed', async () => {
    const sessions = createProviderStore()('Session');
    await sessions.upsert('s1', { uid: 'u1' }, 60);
    expect(await sessions.findByUid('u1')).toEqual({ uid: 'u1' });
    await sessions.destroy('s1');
    expect(await sessions.findByUid('u1')).toBeUndefined();
  });

  it('revokes every entry of a grant, across models, and nothing of another grant', async () => {
    const store = createProviderStore();
    await store('AuthorizationCode').upsert('code', { grantId: 'g1' }, 60);
    await store('AccessToken').upsert('token', { grantId: 'g1' }, 60);
    await store('AccessToken').upsert('other', { grantId: 'g2' }, 60);
    await store('AccessToken').revokeByGrantId('g1');
    expect(await store('AuthorizationCode').find('code')).toBeUndefined();
    expect(await store('AccessToken').find('token')).toBeUndefined();
    expect(await store('AccessToken').find('other')).toEqual({ grantId: 'g2' });
  });

  it('keeps models apart: the same id in two models is two entries', async () => {
    const store = createProviderStore();
    await store('Interaction').upsert('x', { kind: 'Interaction' }, 60);
    await store('Grant').upsert('x', { kind: 'Grant' }, 60);
    expect(await store('Interaction').find('x')).toEqual({ kind: 'Interaction' });
  });
});
