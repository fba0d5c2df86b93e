// A throwaway PostgreSQL cluster for the tests: initdb in a temporary folder, started on a free
// loopback port with fsync off, removed afterwards. Set TEST_DATABASE_URL to use a running server
// instead. Each test file takes a database of its own from it (freshDatabase).
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { handToPostgres, runPostgresProgram } from './local-postgres.ts';
import { givenTestDatabaseUrl } from './test-database-settings.ts';

export interface PostgresCluster {
  readonly url: string;
  /** The server's process id (its postmaster), for a bench to read its CPU time; absent for a server given by TEST_DATABASE_URL. */
  readonly serverPid?: number | undefined;
  stop(): void;
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const given = givenTestDatabaseUrl();
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
  const port = await freePort(); // free a moment ago: the cluster takes it
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
    // postmaster.pid's first line, once pg_ctl -w has seen the server up.
    serverPid: Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * A new database on the cluster, empty, or a copy of `template`'s tables and rows (a database of the
 * cluster no session is connected to); its URL.
 */
export async function freshDatabase(clusterUrl: string | undefined, template?: string): Promise<string> {
  // inject('postgresUrl') is undefined in a test file outside vitest.config.ts's postgres project.
  if (!clusterUrl) throw new Error('no PostgreSQL cluster for this test file: vitest.config.ts starts one only for its postgres project');
  const name = `test_${crypto.randomUUID().replaceAll('-', '')}`;
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    await client.query(template === undefined ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${client.escapeIdentifier(template)}`);
  } finally {
    await client.end();
  }
  const url = new URL(clusterUrl);
  url.pathname = `/${name}`;
  return url.href;
}

// Kept here rather than taken from @platform/tool-sdk/testing: the services' workspaces depend on
// this one, so it depends on none of theirs.
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('the server has no port');
  return address.port;
}
