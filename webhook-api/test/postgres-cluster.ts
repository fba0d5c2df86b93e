// A throwaway PostgreSQL cluster for the tests: initdb in a temporary folder, started on a free
// loopback port with fsync off, removed afterwards. Set TEST_DATABASE_URL to use a running server
// instead. Each test file takes a database of its own from it (freshDatabase).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { handToPostgres, runPostgresProgram } from '@platform/scripts/local-postgres';
import { closedPort } from '@platform/shared/testing';

export interface PostgresCluster {
  readonly url: string;
  stop(): void;
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const given = process.env.TEST_DATABASE_URL;
  if (given) return { url: given, stop: () => undefined };

  const dir = mkdtempSync(join(tmpdir(), 'webhook-pg-'));
  handToPostgres(dir);
  const run = (command: string, args: string[]) => {
    try {
      runPostgresProgram(command, args);
    } catch (error) {
      throw new Error(`${(error as Error).message} (the store tests need PostgreSQL: install it, or set TEST_DATABASE_URL)`, { cause: error });
    }
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const port = await closedPort(); // free a moment ago: the cluster takes it
  run('pg_ctl', [
    '-D',
    data,
    '-l',
    join(dir, 'server.log'),
    '-w',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
    'start',
  ]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A new, empty database on the cluster; its URL. */
export async function freshDatabase(clusterUrl: string): Promise<string> {
  const name = `test_${crypto.randomUUID().replaceAll('-', '')}`;
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(clusterUrl);
  url.pathname = `/${name}`;
  return url.href;
}
