import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { manualClock } from '@platform/tool-sdk/testing';
import { ClientsFileError, ClientStoreFullError, createProviderStore } from './provider-store.ts';

const freshFile = () => join(mkdtempSync(join(tmpdir(), 'provider-store-')), 'clients.json');
const client = (id: string) => ({ client_id: id, redirect_uris: ['http://127.0.0.1:1/cb'] });

describe('registered clients', () => {
  it('are kept in the file and found by the next store that reads it', async () => {
    const file = freshFile();
    await createProviderStore({ clientsFile: file })('Client').upsert('c1', client('c1'));
    expect(await createProviderStore({ clientsFile: file })('Client').find('c1')).toEqual(client('c1'));
  });

  it('leave the file when destroyed', async () => {
    const file = freshFile();
    const clients = createProviderStore({ clientsFile: file })('Client');
    await clients.upsert('c1', client('c1'));
    await clients.upsert('c2', client('c2'));
    await clients.destroy('c1');
    const next = createProviderStore({ clientsFile: file })('Client');
    expect(await next.find('c1')).toBeUndefined();
    expect(await next.find('c2')).toEqual(client('c2'));
  });

  it('are bounded: a full store takes no new client while every one is in use, in memory and in the file', async () => {
    const file = freshFile();
    const store = createProviderStore({ clientsFile: file, maxClients: 2, evictUnusedAfterMs: 60_000, clock: manualClock() });
    for (const id of ['c1', 'c2']) await store('Client').upsert(id, client(id));

    expect(store.roomForClient()).toBe(false);
    await expect(store('Client').upsert('c3', client('c3'))).rejects.toBeInstanceOf(ClientStoreFullError);
    expect(await store('Client').find('c1')).toEqual(client('c1'));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ version: 1, clients: [client('c1'), client('c2')] });
  });

  it('make room only by dropping the client unused for longest, once it has been unused long enough', async () => {
    const file = freshFile();
    const clock = manualClock();
    const store = createProviderStore({ clientsFile: file, maxClients: 2, evictUnusedAfterMs: 60_000, clock });
    for (const id of ['c1', 'c2']) await store('Client').upsert(id, client(id));
    clock.advance(30_000);
    await store('Client').find('c1'); // c1 is in use: an authorization looked it up
    clock.advance(30_000);

    expect(store.roomForClient()).toBe(true);
    await store('Client').upsert('c3', client('c3'));
    expect(await store('Client').find('c2')).toBeUndefined();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ version: 1, clients: [client('c1'), client('c3')] });
  });

  it('stay in memory when no file is named', async () => {
    const store = createProviderStore();
    await store('Client').upsert('c1', client('c1'));
    expect(await store('Client').find('c1')).toEqual(client('c1'));
    expect(await createProviderStore()('Client').find('c1')).toBeUndefined();
  });

  it('start empty when the file does not exist yet, and write nothing until a client registers', () => {
    const file = freshFile();
    createProviderStore({ clientsFile: file });
    expect(existsSync(file)).toBe(false);
  });

  it.each([
    ['not JSON', '{', 'not JSON'],
    ['another version', '{"version":2,"clients":[]}', 'version 2, expected 1'],
    ['a client without an id', '{"version":1,"clients":[{"redirect_uris":[]}]}', 'a client without a client_id'],
  ])('refuse a file with %s, naming it', (_what, text, why) => {
    const file = freshFile();
    writeFileSync(file, text);
    expect(() => createProviderStore({ clientsFile: file })).toThrow(ClientsFileError);
    expect(() => createProviderStore({ clientsFile: file })).toThrow(`${file} is not a clients file written by this platform (${why})`);
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
