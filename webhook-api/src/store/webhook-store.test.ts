import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { until } from '@platform/tool-sdk/testing';
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { openPostgresStore } from './postgres/open-postgres.ts';
import { openSqliteStore } from './sqlite/open-sqlite.ts';
import type { WebhookStore } from './webhook-store.ts';
import type { StoredConfig } from './records.ts';
import { storedConfig } from '../../test/stored-config.ts';
import { freshDatabaseWithSchema } from '../../test/schema-copies.ts';

// With copySchema, the PostgreSQL store's database has the schema applied already; the tests of
// its application start from an empty one.
const backends: [string, (copySchema: boolean) => Promise<{ open: () => Promise<WebhookStore> }>][] = [
  [
    'SQLite',
    () => {
      const path = join(mkdtempSync(join(tmpdir(), 'webhooks-')), 'webhooks.db');
      return Promise.resolve({ open: () => openSqliteStore(path) });
    },
  ],
  [
    'PostgreSQL',
    async (copySchema) => {
      const url = await (copySchema ? freshDatabaseWithSchema : freshDatabase)(inject('postgresUrl'));
      return { open: () => openPostgresStore(url) };
    },
  ],
];

const config = (id: string, companyId = 1): StoredConfig =>
  storedConfig({
    id,
    companyId,
    name: `hook ${id}`,
    authType: 'Bearer',
    authPayloadEncrypted: 'v1.k.iv.tag.ct',
    customHeaders: '{"X-Tenant":"acme"}',
    includeRetryHeader: false,
  });

describe.each(backends)('the %s store', (_name, prepare) => {
  const open: WebhookStore[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  async function store({ copySchema = true } = {}): Promise<{ store: WebhookStore; reopen: () => Promise<WebhookStore> }> {
    const backend = await prepare(copySchema);
    const first = await backend.open();
    open.push(first);
    return {
      store: first,
      reopen: async () => {
        const again = await backend.open();
        open.push(again);
        return again;
      },
    };
  }

  it('keeps configurations, links and scopes across a restart, with migrations applied once', async () => {
    const { store: s, reopen } = await store({ copySchema: false });
    await s.createConfig(config('a'));
    await s.linkDevice({ webhookConfigId: 'a', deviceId: 1001, createdAt: '2026-11-22T10:00:00.000Z' });
    await s.createScope('a', 1001, { id: 's1', scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true });
    await s.close();
    open.splice(0);
    const again = await reopen();
    expect(await again.getConfig('a')).toEqual(config('a'));
    expect(await again.listLinks('a')).toEqual([{ webhookConfigId: 'a', deviceId: 1001, createdAt: '2026-11-22T10:00:00.000Z' }]);
    expect(await again.listScopes('a', 1001)).toEqual([{ id: 's1', scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true }]);
  });

  it('names each key id stored credentials and signing secrets are encrypted under once, the previous signing secret included', async () => {
    const { store: s } = await store();
    expect(await s.encryptionKeyIdsInUse()).toEqual([]);
    const encrypted = (keyId: string) => `v1.${keyId}.aXY.dGFn.Y3Q`;
    const signing = (keyId: string) => ({ current: encrypted(keyId), previous: null, previousUntil: null });
    await s.createConfig(storedConfig({ authType: 'Bearer', authPayloadEncrypted: encrypted('2026-11'), signingSecrets: signing('2026-11') }));
    await s.createConfig(storedConfig({ authType: 'Bearer', authPayloadEncrypted: encrypted('local-20261101'), signingSecrets: signing('2026-11') }));
    const rotated = await s.createConfig(storedConfig({ signingSecrets: signing('2026-09') }));
    if (rotated === 'limit-reached') throw new Error('limit');
    expect(await s.encryptionKeyIdsInUse()).toEqual(['2026-09', '2026-11', 'local-20261101']);
    // Rotated under a new key: the old secret still signs for a day, so its key is still in use.
    await s.rotateSigningSecret(rotated.id, (current) => ({ current: encrypted('2026-12'), previous: current.current, previousUntil: Date.now() + 60_000 }));
    expect(await s.encryptionKeyIdsInUse()).toEqual(['2026-09', '2026-11', '2026-12', 'local-20261101']);
    // Once its day is over, it signs nothing, and its key may go.
    await s.rotateSigningSecret(rotated.id, (current) => ({ ...current, previousUntil: Date.now() - 1 }));
    expect(await s.encryptionKeyIdsInUse()).toEqual(['2026-11', '2026-12', 'local-20261101']);
    // A deleted configuration keeps no credential and no secret (only its attempt log), so its keys may go.
    expect(await s.deleteConfig(rotated.id)).toBe(true);
    expect(await s.encryptionKeyIdsInUse()).toEqual(['2026-11', 'local-20261101']);
  });

  it('lists a company’s configurations only, in creation order', async () => {
    const { store: s } = await store();
    await s.createConfig(config('a', 1));
    await s.createConfig(config('b', 2));
    await s.createConfig(config('c', 1));
    expect((await s.listConfigs(1)).map((c) => c.id)).toEqual(['a', 'c']);
    expect(await s.countConfigs()).toBe(3);
  });

  it('replaces every field on update and answers undefined for an unknown id', async () => {
    const { store: s } = await store();
    await s.createConfig(config('a'));
    const { id: _id, companyId: _company, ...fields } = config('a');
    const updated = await s.updateConfig('a', { ...fields, name: 'renamed', authType: 'None', authPayloadEncrypted: null, customHeaders: null });
    expect(updated).toMatchObject({ id: 'a', companyId: 1, name: 'renamed', authType: 'None', authPayloadEncrypted: null, customHeaders: null });
    expect(await s.updateConfig('missing', fields)).toBeUndefined();
  });

  it('reads a configuration as another connection (another process) left it, at once: changed, its secret rotated, deleted', async () => {
    const { store: s, reopen } = await store();
    const other = await reopen();
    await s.createConfig(config('a'));
    expect(await s.getConfig('a')).toMatchObject({ name: 'hook a' });
    const { id: _id, companyId: _company, signingSecrets: _secrets, ...fields } = config('a');
    await other.updateConfig('a', { ...fields, name: 'renamed elsewhere' });
    expect(await s.getConfig('a')).toMatchObject({ name: 'renamed elsewhere' });
    await other.rotateSigningSecret('a', (current) => ({ current: 'v1.k.iv.tag.rotated', previous: current.current, previousUntil: 1 }));
    expect((await s.getConfig('a'))?.signingSecrets.current).toBe('v1.k.iv.tag.rotated');
    expect(await other.deleteConfig('a')).toBe(true);
    expect(await s.getConfig('a')).toBeUndefined();
  });

  it('reports a second link of the same device as already linked', async () => {
    const { store: s } = await store();
    await s.createConfig(config('a'));
    const link = { webhookConfigId: 'a', deviceId: 7, createdAt: '2026-11-22T10:00:00.000Z' };
    expect(await s.linkDevice(link)).toEqual(link);
    expect(await s.linkDevice(link)).toBe('already-linked');
  });

  it('reports an identical scope as a duplicate, on create and on update', async () => {
    const { store: s } = await store();
    await s.createConfig(config('a'));
    await s.linkDevice({ webhookConfigId: 'a', deviceId: 7, createdAt: '2026-11-22T10:00:00.000Z' });
    const connection = { scopeLevel: 'Connection' as const, connectionTag: 'modbus-1', measurement: null, enabled: true };
    expect(await s.createScope('a', 7, { id: 's1', ...connection })).toMatchObject({ id: 's1' });
    expect(await s.createScope('a', 7, { id: 's2', ...connection, enabled: false })).toBe('duplicate');
    expect(await s.createScope('a', 7, { id: 's3', scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true })).toMatchObject({ id: 's3' });
    expect(await s.createScope('a', 7, { id: 's4', scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true })).toBe('duplicate');
    expect(await s.updateScope('a', 7, { id: 's3', ...connection })).toBe('duplicate');
    expect(await s.updateScope('a', 7, { id: 's1', ...connection, enabled: false })).toMatchObject({ enabled: false });
    expect(await s.updateScope('a', 7, { id: 'nope', ...connection })).toBeUndefined();
  });

  it('removes links and scopes with their configuration, and scopes with their link', async () => {
    const { store: s } = await store();
    await s.createConfig(config('a'));
    await s.linkDevice({ webhookConfigId: 'a', deviceId: 7, createdAt: '2026-11-22T10:00:00.000Z' });
    await s.createScope('a', 7, { id: 's1', scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true });
    expect(await s.unlinkDevice('a', 7)).toBe(true);
    expect(await s.listScopes('a', 7)).toEqual([]);
    await s.linkDevice({ webhookConfigId: 'a', deviceId: 8, createdAt: '2026-11-22T10:00:00.000Z' });
    expect(await s.deleteConfig('a')).toBe(true);
    expect(await s.deleteConfig('a')).toBe(false);
    expect(await s.listLinks('a')).toEqual([]);
  });

  it('answers not-found when a device is linked to a configuration deleted meanwhile, or a scope added to a link removed meanwhile', async () => {
    const { store: s } = await store();
    await s.createConfig(config('a'));
    await s.linkDevice({ webhookConfigId: 'a', deviceId: 7, createdAt: '2026-11-22T10:00:00.000Z' });
    await s.unlinkDevice('a', 7);
    expect(await s.createScope('a', 7, { id: 's1', scopeLevel: 'Device', connectionTag: null, measurement: null, enabled: true })).toBe('not-found');
    await s.deleteConfig('a');
    expect(await s.linkDevice({ webhookConfigId: 'a', deviceId: 7, createdAt: '2026-11-22T10:00:00.000Z' })).toBe('not-found');
  });

  it('stops at each limit: configurations per company, devices per configuration, scopes per link', async () => {
    const { store: s } = await store();
    expect(await s.createConfig(config('a', 1), 2)).toMatchObject({ id: 'a' });
    expect(await s.createConfig(config('b', 1), 2)).toMatchObject({ id: 'b' });
    expect(await s.createConfig(config('c', 1), 2)).toBe('limit-reached');
    expect(await s.createConfig(config('d', 2), 2)).toMatchObject({ id: 'd' });
    const link = (deviceId: number) => ({ webhookConfigId: 'a', deviceId, createdAt: '2026-11-22T10:00:00.000Z' });
    expect(await s.linkDevice(link(1), 1)).toEqual(link(1));
    expect(await s.linkDevice(link(1), 1)).toBe('already-linked');
    expect(await s.linkDevice(link(2), 1)).toBe('limit-reached');
    const scope = (id: string) => ({ id, scopeLevel: 'Connection' as const, connectionTag: id, measurement: null, enabled: true });
    expect(await s.createScope('a', 1, scope('s1'), 1)).toMatchObject({ id: 's1' });
    expect(await s.createScope('a', 1, scope('s2'), 1)).toBe('limit-reached');
    expect(await s.countConfigs()).toBe(3);
  });

  it('frees a place when a configuration is deleted, counts no create that failed, and keeps the count across a restart', async () => {
    const { store: s, reopen } = await store();
    expect(await s.createConfig(config('a', 7), 2)).toMatchObject({ id: 'a' });
    // The same id again fails inside the transaction: the count taken for it is rolled back.
    await expect(s.createConfig(config('a', 7), 2)).rejects.toThrow();
    expect(await s.createConfig(config('b', 7), 2)).toMatchObject({ id: 'b' });
    expect(await s.createConfig(config('c', 7), 2)).toBe('limit-reached');
    expect(await s.deleteConfig('a')).toBe(true);
    expect(await s.deleteConfig('a')).toBe(false);
    expect(await s.createConfig(config('c', 7), 2)).toMatchObject({ id: 'c' });
    expect(await s.createConfig(config('d', 7), 2)).toBe('limit-reached');
    const again = await reopen();
    expect(await again.createConfig(config('d', 7), 2)).toBe('limit-reached');
    expect(await again.createConfig(config('d', 7), 3)).toMatchObject({ id: 'd' });
  });

  it('lets no two concurrent creates pass a limit', async () => {
    const { store: s } = await store();
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => s.createConfig(config(`c${i}`, 5), 4)));
    expect(results.filter((r) => r !== 'limit-reached')).toHaveLength(4);
    const [first] = await s.listConfigs(5);
    expect(await s.listConfigs(5)).toHaveLength(4);
    const id = first?.id ?? '';
    const links = await Promise.all(
      Array.from({ length: 12 }, (_, i) => s.linkDevice({ webhookConfigId: id, deviceId: 100 + i, createdAt: '2026-11-22T10:00:00.000Z' }, 3)),
    );
    expect(links.filter((r) => r !== 'limit-reached')).toHaveLength(3);
    const linked = (await s.listLinks(id))[0]?.deviceId ?? 0;
    const scopes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        s.createScope(id, linked, { id: `s${i}`, scopeLevel: 'Connection', connectionTag: `t${i}`, measurement: null, enabled: true }, 5),
      ),
    );
    expect(scopes.filter((r) => r !== 'limit-reached')).toHaveLength(5);
  });

  it('pages configurations, links and scopes in creation order, a cursor position past the last item of each page', async () => {
    const { store: s } = await store();
    for (const id of ['z', 'y', 'x', 'w', 'v']) await s.createConfig(config(id, 1));
    const first = await s.pageConfigs(1, { limit: 2 });
    expect(first.items.map((c) => c.id)).toEqual(['z', 'y']);
    const second = await s.pageConfigs(1, { limit: 2, after: first.next });
    expect(second.items.map((c) => c.id)).toEqual(['x', 'w']);
    const third = await s.pageConfigs(1, { limit: 2, after: second.next });
    expect(third).toEqual({ items: [expect.objectContaining({ id: 'v' }) as unknown], next: undefined });
    expect((await s.pageConfigs(1, { limit: 5 })).next).toBeUndefined();
    for (const deviceId of [9, 3, 7]) await s.linkDevice({ webhookConfigId: 'z', deviceId, createdAt: '2026-11-22T10:00:00.000Z' });
    const links = await s.pageLinks('z', { limit: 2 });
    expect(links.items.map((l) => l.deviceId)).toEqual([9, 3]);
    expect((await s.pageLinks('z', { limit: 2, after: links.next })).items.map((l) => l.deviceId)).toEqual([7]);
    for (const id of ['s9', 's1', 's5']) await s.createScope('z', 9, { id, scopeLevel: 'Connection', connectionTag: id, measurement: null, enabled: true });
    const scopes = await s.pageScopes('z', 9, { limit: 1 });
    expect(scopes.items.map((x) => x.id)).toEqual(['s9']);
    expect((await s.pageScopes('z', 9, { limit: 5, after: scopes.next })).items.map((x) => x.id)).toEqual(['s1', 's5']);
  });

  it('applies each migration once when several processes open the database together', async () => {
    const { store: s, reopen } = await store({ copySchema: false });
    await s.createConfig(config('a'));
    const others = await Promise.all([reopen(), reopen(), reopen()]);
    for (const other of others) expect(await other.getConfig('a')).toEqual(config('a'));
  });
});

describe('the PostgreSQL store', () => {
  it('survives the server dropping its idle connections, and reconnects on the next query', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const dropped: Error[] = [];
    const store = await openPostgresStore(url, { onIdleConnectionError: (error) => dropped.push(error) });
    try {
      await store.createConfig(config('a'));
      const admin = new pg.Client({ connectionString: inject('postgresUrl') });
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [
        new URL(url).pathname.slice(1),
      ]);
      await admin.end();
      await until(() => dropped.length > 0, 'the pool told of its dropped connections');
      expect(await store.getConfig('a')).toEqual(config('a'));
    } finally {
      await store.close();
    }
  });
});
