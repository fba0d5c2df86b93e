// A throwaway PostgreSQL cluster for the tests: initdb in a temporary folder, started on a free
// loopback port with fsync off, removed afterwards. Set TEST_DATABASE_URL to use a running server
// instead. Each test file takes a database of its own from it (freshDatabase).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { closedPort } from '@platform/shared/testing';

export interface PostgresCluster {
  readonly url: string;
  stop(): void;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const found = versions.map((v) => join(root, v, 'bin')).find((dir) => existsSync(join(dir, 'initdb')));
  if (!found) {
    throw new Error('The store tests need PostgreSQL: install it (apt-get install postgresql; .ci/run does) or set TEST_DATABASE_URL.');
  }
  return found;
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const given = process.env.TEST_DATABASE_URL;
  if (given) return { url: given, stop: () => undefined };

  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'webhook-pg-'));
  // PostgreSQL refuses to run as root: run it as the postgres user the Debian package created.
  const asRoot = process.getuid?.() === 0;
  const run = (command: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
    const result = spawnSync(file, argv, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  };
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
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
