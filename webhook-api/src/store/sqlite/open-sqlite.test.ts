import { chmodSync, existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { classifySqliteError } from './sqlite-driver.ts';
import { openSqliteStore } from './open-sqlite.ts';
import { StoreUnavailableError } from '../store-unavailable.ts';
import type { WebhookStore } from '../webhook-store.ts';
import { storedConfig } from '../../../test/stored-config.ts';

const config = storedConfig({ id: 'a' });

const newPath = () => join(mkdtempSync(join(tmpdir(), 'webhooks-sqlite-')), 'webhooks.db');
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('the SQLite store', () => {
  const open: WebhookStore[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const openStore = async (path: string, options?: { busyTimeoutMs?: number }) => {
    const store = await openSqliteStore(path, options);
    open.push(store);
    return store;
  };

  it('creates its file, and the write-ahead log beside it, readable by the owner only (0600)', async () => {
    const path = newPath();
    const store = await openStore(path);
    await store.createConfig(config);
    expect(modeOf(path)).toBe(0o600);
    expect(existsSync(`${path}-wal`)).toBe(true);
    expect(modeOf(`${path}-wal`)).toBe(0o600);
  });

  it('sets an existing file to 0600 when it opens it', async () => {
    const path = newPath();
    await (await openStore(path)).close();
    open.splice(0);
    chmodSync(path, 0o644);
    const store = await openStore(path);
    expect(modeOf(path)).toBe(0o600);
    expect(await store.countConfigs()).toBe(0);
  });

  it('answers StoreUnavailableError when another connection holds the database past the busy timeout', async () => {
    const path = newPath();
    const store = await openStore(path, { busyTimeoutMs: 50 });
    expect(await store.countConfigs()).toBe(0);
    const other = new DatabaseSync(path);
    other.exec('BEGIN EXCLUSIVE');
    try {
      await expect(store.createConfig(config)).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(await store.createConfig(config)).toMatchObject({ id: 'a' });
  });
});

describe('classifySqliteError', () => {
  const sqliteError = (errcode: number) => Object.assign(new Error('sqlite'), { code: 'ERR_SQLITE_ERROR', errcode });

  it.each([
    ['SQLITE_BUSY', 5],
    ['SQLITE_LOCKED', 6],
    ['SQLITE_IOERR', 10],
    ['SQLITE_IOERR_WRITE', 778],
    ['SQLITE_FULL', 13],
    ['SQLITE_CANTOPEN', 14],
    ['SQLITE_BUSY_SNAPSHOT', 517],
  ])('classifies %s as unavailable', (_name, errcode) => {
    expect(classifySqliteError(sqliteError(errcode))).toBe('unavailable');
  });

  it('classifies unique, primary-key and foreign-key violations, and leaves anything else alone', () => {
    expect(classifySqliteError(sqliteError(2067))).toBe('unique');
    expect(classifySqliteError(sqliteError(1555))).toBe('unique');
    expect(classifySqliteError(sqliteError(787))).toBe('foreign-key');
    expect(classifySqliteError(sqliteError(1))).toBeUndefined();
    expect(classifySqliteError(new Error('no such table'))).toBeUndefined();
    expect(classifySqliteError('text')).toBeUndefined();
  });
});
