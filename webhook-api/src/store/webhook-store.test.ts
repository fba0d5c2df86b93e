import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { freshDatabase } from '../../test/postgres-cluster.ts';
import { openPostgresStore } from './postgres-store.ts';
import { openSqliteStore } from './sqlite-store.ts';
import type { StoredConfig, WebhookStore } from './webhook-store.ts';

const backends: [string, () => Promise<{ open: () => Promise<WebhookStore> }>][] = [
  ['SQLite', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'webhooks-')), 'webhooks.db');
    return Promise.resolve({ open: () => Promise.resolve(openSqliteStore(path)) });
  }],
  ['PostgreSQL', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    return { open: () => openPostgresStore(url) };
  }],
];

const config = (id: string, companyId = 1): StoredConfig => ({
  id,
  companyId,
  name: `hook ${id}`,
  url: 'https://receiver.example/hook',
  method: 'POST',
  deliveryMode: 'Realtime',
  authType: 'Bearer',
  authPayloadEncrypted: 'v1.k.iv.tag.ct',
  customHeaders: '{"X-Tenant":"acme"}',
  includeMetadataHeaders: true,
  includeRetryHeader: false,
});

describe.each(backends)('the %s store', (_name, prepare) => {
  const open: WebhookStore[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  async function store(): Promise<{ store: WebhookStore; reopen: () => Promise<WebhookStore> }> {
    const backend = await prepare();
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
    const { store: s, reopen } = await store();
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
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [new URL(url).pathname.slice(1)]);
      await admin.end();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(dropped.length).toBeGreaterThan(0);
      expect(await store.getConfig('a')).toEqual(config('a'));
    } finally {
      await store.close();
    }
  });
});
