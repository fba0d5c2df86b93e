import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { storedConfig } from '../../test/stored-config.ts';
import { cachingConfigReads } from './config-read-cache.ts';
import type { ConfigFields, StoredConfig } from './records.ts';
import { openSqliteDriver } from './sqlite/open-sqlite.ts';
import { createSqlWebhookStore } from './sql-webhook-store.ts';
import { insertCountedInTransaction } from './config-counts.ts';
import type { WebhookStore } from './webhook-store.ts';

const fieldsOf = ({ id: _id, companyId: _company, signingSecrets: _secrets, ...fields }: StoredConfig): ConfigFields => fields;

/** A real SQLite store whose configuration reads are counted, behind the cache as open-sqlite.ts builds it. */
async function countedStore(maxEntries?: number) {
  const path = join(mkdtempSync(join(tmpdir(), 'config-cache-')), 'webhooks.db');
  const driver = await openSqliteDriver(path);
  const inner = createSqlWebhookStore(driver, insertCountedInTransaction);
  const reads = { count: 0, gate: undefined as Promise<unknown> | undefined, rowRead: undefined as (() => void) | undefined };
  const counted: WebhookStore = {
    ...inner,
    async getConfig(id) {
      reads.count += 1;
      const config = await inner.getConfig(id);
      reads.rowRead?.();
      await reads.gate;
      return config;
    },
  };
  const dataVersion = driver.dataVersion?.bind(driver);
  if (!dataVersion) throw new Error('the SQLite driver tells no data version');
  const versionReads = { count: 0 };
  const changesElsewhere = () => {
    versionReads.count += 1;
    return dataVersion();
  };
  const store = cachingConfigReads(counted, { changesElsewhere, ...(maxEntries !== undefined && { maxEntries }) });
  return { store, reads, versionReads, path };
}

describe('cachingConfigReads on SQLite', () => {
  const stores: WebhookStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });
  const opened = async (maxEntries?: number) => {
    const made = await countedStore(maxEntries);
    stores.push(made.store);
    return made;
  };

  it('answers a configuration read again from memory, and never keeps one that does not exist', async () => {
    const { store, reads } = await opened();
    const config = storedConfig();
    await store.createConfig(config);
    expect(await store.getConfig(config.id)).toEqual(config);
    expect(await store.getConfig(config.id)).toEqual(config);
    expect(reads.count).toBe(1);
    expect(await store.getConfig('missing')).toBeUndefined();
    expect(await store.getConfig('missing')).toBeUndefined();
    expect(reads.count).toBe(3);
  });

  it("reads this store's own update, signing-secret rotation and delete at once", async () => {
    const { store } = await opened();
    const config = storedConfig();
    await store.createConfig(config);
    await store.getConfig(config.id);
    await store.updateConfig(config.id, { ...fieldsOf(config), name: 'renamed' });
    expect(await store.getConfig(config.id)).toMatchObject({ name: 'renamed' });
    await store.updateConfig(config.id, (current) => ({ ...fieldsOf(current), url: 'https://elsewhere.example/hook' }));
    expect(await store.getConfig(config.id)).toMatchObject({ name: 'renamed', url: 'https://elsewhere.example/hook' });
    await store.rotateSigningSecret(config.id, (current) => ({ current: 'v1.k.iv.tag.new', previous: current.current, previousUntil: 1 }));
    expect((await store.getConfig(config.id))?.signingSecrets).toEqual({
      current: 'v1.k.iv.tag.new',
      previous: config.signingSecrets.current,
      previousUntil: 1,
    });
    expect(await store.deleteConfig(config.id)).toBe(true);
    expect(await store.getConfig(config.id)).toBeUndefined();
  });

  it('drops the configuration when an update fails, whatever it had done', async () => {
    const { store, reads } = await opened();
    const config = storedConfig();
    await store.createConfig(config);
    await store.getConfig(config.id);
    await expect(
      store.updateConfig(config.id, () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await store.getConfig(config.id)).toEqual(config);
    expect(reads.count).toBe(2);
  });

  it('keeps nothing from a read that an update overtook, so the next read is the updated configuration', async () => {
    const { store, reads } = await opened();
    const config = storedConfig();
    await store.createConfig(config);
    const { promise: gate, resolve: open } = Promise.withResolvers<undefined>();
    const { promise: rowRead, resolve: hasRow } = Promise.withResolvers<undefined>();
    reads.gate = gate;
    reads.rowRead = () => {
      hasRow(undefined);
    };
    // The read has its row (the name before the update) but has not answered yet when the update commits.
    const slowRead = store.getConfig(config.id);
    await rowRead;
    await store.updateConfig(config.id, { ...fieldsOf(config), name: 'renamed' });
    open(undefined);
    expect(await slowRead).toMatchObject({ name: config.name });
    reads.gate = undefined;
    expect(await store.getConfig(config.id)).toMatchObject({ name: 'renamed' });
  });

  it('reads what another process committed at once: changed, then deleted', async () => {
    const { store, path } = await opened();
    const config = storedConfig();
    await store.createConfig(config);
    await store.getConfig(config.id);
    const sql = async (statement: string) => {
      const script = `const { DatabaseSync } = require('node:sqlite'); const db = new DatabaseSync(process.argv[1]); db.exec('PRAGMA busy_timeout = 5000'); db.prepare(process.argv[2]).run(process.argv[3]);`;
      const child = spawn(process.execPath, ['-e', script, path, statement, config.id], { stdio: 'inherit' });
      const [code] = (await once(child, 'exit')) as [number];
      expect(code).toBe(0);
    };
    await sql("UPDATE webhook_configs SET name = 'renamed by another process' WHERE id = ?");
    expect(await store.getConfig(config.id)).toMatchObject({ name: 'renamed by another process' });
    await sql('DELETE FROM webhook_configs WHERE id = ?');
    expect(await store.getConfig(config.id)).toBeUndefined();
  });

  it('asks the database once for all the reads asked for in one turn of the event loop, and again for a read asked for later', async () => {
    const { store, reads, versionReads } = await opened();
    const config = storedConfig();
    await store.createConfig(config);
    await store.getConfig(config.id);
    const before = versionReads.count;
    const answers = await Promise.all(Array.from({ length: 20 }, () => store.getConfig(config.id)));
    expect(answers.every((answer) => answer?.name === config.name)).toBe(true);
    expect(versionReads.count - before).toBe(1);
    expect(reads.count).toBe(1);
    await store.getConfig(config.id);
    expect(versionReads.count - before).toBe(2);
  });

  it("reads another connection's commit made after a read of the same turn was answered", async () => {
    const { store, path } = await opened();
    const config = storedConfig();
    await store.createConfig(config);
    await store.getConfig(config.id);
    const other = new DatabaseSync(path);
    try {
      // The commit comes as the first read's answer is handled, in the very check phase where the
      // version was read for it; a read asked for after it must not be answered with that version.
      const second = store.getConfig(config.id).then((first) => {
        expect(first).toMatchObject({ name: config.name });
        other.prepare('UPDATE webhook_configs SET name = ? WHERE id = ?').run('renamed by another connection', config.id);
        return store.getConfig(config.id);
      });
      expect(await second).toMatchObject({ name: 'renamed by another connection' });
    } finally {
      other.close();
    }
  });

  it('keeps at most maxEntries configurations, the oldest going first', async () => {
    const { store, reads } = await opened(2);
    const [a, b, c] = [storedConfig(), storedConfig(), storedConfig()];
    for (const config of [a, b, c]) await store.createConfig(config);
    for (const config of [a, b, c]) await store.getConfig(config.id);
    expect(reads.count).toBe(3);
    await store.getConfig(c.id);
    await store.getConfig(b.id);
    expect(reads.count).toBe(3);
    await store.getConfig(a.id);
    expect(reads.count).toBe(4);
  });

  it('hands out configurations that cannot be changed in place', async () => {
    const { store } = await opened();
    const config = storedConfig();
    await store.createConfig(config);
    const read = await store.getConfig(config.id);
    expect(Object.isFrozen(read) && Object.isFrozen(read?.signingSecrets)).toBe(true);
  });
});
