import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { createPostgresDriver } from './postgres-driver.ts';
import { openPostgresStore, postgresMigrations } from './postgres-store.ts';
import { runMigrations } from './run-migrations.ts';
import type { SqlDriver } from './sql-driver.ts';
import { createSqliteDriver } from './sqlite-driver.ts';
import { openSqliteStore, sqliteMigrations } from './sqlite-store.ts';
import type { WebhookStore } from './webhook-store.ts';

/** Rows as the first schema made them: created out of id order, some with equal timestamps. */
async function seedFirstSchema(driver: SqlDriver): Promise<void> {
  const at = '2026-01-01T00:00:00.000Z';
  for (const id of ['m', 'b', 'x']) {
    await driver.run(
      `INSERT INTO webhook_configs (id, company_id, name, url, method, delivery_mode, auth_type, include_metadata_headers, include_retry_header, created_at)
       VALUES ($1, 1, $1, 'https://r.example/h', 'POST', 'Batch', 'None', $2, $2, $3)`,
      [id, true, id === 'm' ? '2025-12-31T00:00:00.000Z' : at],
    );
  }
  for (const deviceId of [4, 9])
    await driver.run('INSERT INTO device_links (webhook_config_id, device_id, created_at) VALUES ($1, $2, $3)', ['m', deviceId, at]);
}

async function expectUpgraded(store: WebhookStore): Promise<void> {
  try {
    expect((await store.listConfigs(1)).map((c) => c.id)).toEqual(['m', 'b', 'x']);
    expect((await store.listLinks('m')).map((l) => l.deviceId)).toEqual([4, 9]);
    const b = await store.getConfig('b');
    if (!b) throw new Error('configuration b is gone');
    await store.createConfig({ ...b, id: 'a' });
    const first = await store.pageConfigs(1, { limit: 3 });
    expect((await store.pageConfigs(1, { limit: 3, after: first.next })).items.map((c) => c.id)).toEqual(['a']);
  } finally {
    await store.close();
  }
}

describe('the migrations', () => {
  it('bring a SQLite database made by the first migration up to date, keeping its rows in creation order', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'webhooks-migrate-')), 'webhooks.db');
    const db = new DatabaseSync(path);
    db.exec('PRAGMA foreign_keys = ON');
    const driver = createSqliteDriver(db);
    await runMigrations(driver, sqliteMigrations.slice(0, 1));
    await seedFirstSchema(driver);
    await driver.close();
    await expectUpgraded(await openSqliteStore(path));
  });

  it('bring a PostgreSQL database made by the first migration up to date, keeping its rows in creation order', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const driver = createPostgresDriver(url, { maxConnections: 2, connectionTimeoutMs: 5_000, queryTimeoutMs: 5_000 });
    await runMigrations(driver, postgresMigrations.slice(0, 1));
    await seedFirstSchema(driver);
    await driver.close();
    await expectUpgraded(await openPostgresStore(url));
  });

  it('apply each version once when several processes open a new PostgreSQL database together', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(url, { maxConnections: 2 })));
    await Promise.all(stores.map((s) => s.close()));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(postgresMigrations.map((_, i) => i + 1));
    } finally {
      await client.end();
    }
  });
});
