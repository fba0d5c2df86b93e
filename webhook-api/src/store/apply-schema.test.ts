import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { openPostgresDriver } from './postgres/open-postgres.ts';
import type { SqlDriver } from './sql-driver.ts';
import { openSqliteDriver } from './sqlite/open-sqlite.ts';

const newPath = () => join(mkdtempSync(join(tmpdir(), 'webhooks-schema-')), 'webhooks.db');

/** Every table's columns, by name, in the order of their names. */
async function columnsOf(driver: SqlDriver, sql: string): Promise<Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  for (const row of await driver.all(sql)) (tables[String(row.t)] ??= []).push(String(row.c));
  for (const columns of Object.values(tables)) columns.sort();
  return tables;
}

describe('the schema', () => {
  it('is applied once to a new SQLite file, each version, and a second open applies nothing', async () => {
    const path = newPath();
    await (await openSqliteDriver(path)).close();
    const driver = await openSqliteDriver(path);
    try {
      expect((await driver.all('SELECT version FROM schema_migrations')).map((r) => Number(r.version))).toEqual([1, 2]);
    } finally {
      await driver.close();
    }
  });

  it('is applied once when several processes open a new PostgreSQL database together', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const drivers = await Promise.all(Array.from({ length: 4 }, () => openPostgresDriver(url, { maxConnections: 2 })));
    await Promise.all(drivers.map((d) => d.close()));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual([1, 2]);
    } finally {
      await client.end();
    }
  });

  it('has the same tables and columns in both dialects', async () => {
    const sqlite = await openSqliteDriver(newPath());
    const postgres = await openPostgresDriver(await freshDatabase(inject('postgresUrl')), { maxConnections: 1 });
    try {
      const inSqlite = await columnsOf(
        sqlite,
        `SELECT m.name AS t, p.name AS c FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name <> 'schema_migrations'`,
      );
      const inPostgres = await columnsOf(
        postgres,
        `SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'schema_migrations'`,
      );
      // SQLite takes the creation order of these from the rowid, where PostgreSQL has a column.
      for (const table of ['webhook_configs', 'device_links', 'scopes', 'deliveries']) inPostgres[table] = inPostgres[table]?.filter((c) => c !== 'seq') ?? [];
      expect(inSqlite).toEqual(inPostgres);
      expect(Object.keys(inSqlite).sort()).toEqual([
        'company_config_counts',
        'deliveries',
        'delivery_attempts',
        'delivery_points',
        'device_links',
        'scopes',
        'webhook_configs',
      ]);
    } finally {
      await Promise.all([sqlite.close(), postgres.close()]);
    }
  });
});
