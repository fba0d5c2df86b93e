import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { freshDatabase } from '@platform/devtools/postgres-cluster';
import { openPostgresDriver } from './postgres/open-postgres.ts';
import type { SqlDriver } from './sql-driver.ts';
import { openSqliteConnection, openSqliteDriver } from './sqlite/open-sqlite.ts';
import { applySchema } from './apply-schema.ts';
import { createPostgresDriver } from './postgres/postgres-driver.ts';
import { postgresSchema } from './postgres/postgres-schema.ts';
import { createSqliteDriver } from './sqlite/sqlite-driver.ts';
import { sqliteSchema } from './sqlite/sqlite-schema.ts';
import { traceContextColumn } from './trace-context-schema.ts';

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
      expect((await driver.all('SELECT version FROM schema_migrations')).map((r) => Number(r.version))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
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
      expect(rows.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    } finally {
      await client.end();
    }
  });

  it.each(['SQLite', 'PostgreSQL'] as const)('puts the Batch points version 2 left waiting into a batch per group, due at once, on %s', async (dialect) => {
    // A database at version 2, with points of two groups waiting for their batches.
    const path = newPath();
    const url = dialect === 'PostgreSQL' ? await freshDatabase(inject('postgresUrl')) : undefined;
    const old = url
      ? createPostgresDriver(url, { maxConnections: 1, connectionTimeoutMs: 5_000, queryTimeoutMs: 5_000 })
      : createSqliteDriver(openSqliteConnection(path));
    await applySchema(old, url ? [postgresSchema, traceContextColumn] : [sqliteSchema, traceContextColumn]);
    const yes = url ? 'true' : '1';
    await old.exec(
      `INSERT INTO webhook_configs (id, company_id, name, url, method, delivery_mode, auth_type, include_metadata_headers, include_retry_header, signing_secret_encrypted)
       VALUES ('c1', 1, 'n', 'https://x.example', 'POST', 'Batch', 'None', ${yes}, ${yes}, 's');
       INSERT INTO device_links (webhook_config_id, device_id, created_at) VALUES ('c1', 7, '2026-01-01T00:00:00Z');`,
    );
    for (const [m, at] of [
      ['temperature', 5],
      ['temperature', 3],
      ['pressure', 4],
    ] as const) {
      await old.run(
        `INSERT INTO delivery_points (delivery_id, webhook_config_id, device_id, gateway_id, measurement, point, accepted_at) VALUES (NULL, 'c1', 7, 'gw', $1, '{}', $2)`,
        [m, at],
      );
    }
    await old.close();
    const driver = url ? await openPostgresDriver(url, { maxConnections: 1 }) : await openSqliteDriver(path);
    try {
      const batches = await driver.all(
        `SELECT d.measurement, d.mode, d.state, d.next_attempt_at, d.accepted_at, d.point_count, d.batch_open, d.webhook_id = 'msg_' || d.id AS named,
           (SELECT COUNT(*) FROM delivery_points p WHERE p.delivery_id = d.id) AS points
         FROM deliveries d ORDER BY d.measurement`,
      );
      expect(batches.map((b) => ({ ...b, batch_open: Boolean(b.batch_open), named: Boolean(b.named), points: Number(b.points) }))).toEqual([
        {
          measurement: 'pressure',
          mode: 'Batch',
          state: 'queued',
          next_attempt_at: 4,
          accepted_at: 4,
          point_count: 1,
          batch_open: false,
          named: true,
          points: 1,
        },
        {
          measurement: 'temperature',
          mode: 'Batch',
          state: 'queued',
          next_attempt_at: 3,
          accepted_at: 3,
          point_count: 2,
          batch_open: false,
          named: true,
          points: 2,
        },
      ]);
      expect(await driver.one('SELECT COUNT(*) AS n FROM delivery_points WHERE delivery_id IS NULL')).toEqual({ n: 0 });
    } finally {
      await driver.close();
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
        'endpoint_cursors',
        'ingest_keys',
        'scopes',
        'webhook_configs',
      ]);
    } finally {
      await Promise.all([sqlite.close(), postgres.close()]);
    }
  });
});
