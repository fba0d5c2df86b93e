// A PostgreSQL cluster of the repository's own for `npm run start:pg` when no DATABASE_URL is
// given: created once under data/postgres with the machine's PostgreSQL binaries (Debian's
// postgresql package), started on loopback only, kept between runs like the SQLite file is. It
// takes passwords only, and each service connects as a role of its own (local-postgres-access.ts);
// a cluster an older start:pg made without passwords is brought to that as it starts.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { accessStatements, localPostgresRoles, passwordLiteral, passwordOnlyHba, type LocalPostgresSecrets } from './local-postgres-access.ts';

export { localPostgresRoles, localPostgresSecretNames, type LocalPostgresSecrets } from './local-postgres-access.ts';

export interface LocalPostgres {
  /** The webhook API's and deliverers' connection: role webhook_api, which owns the public schema only. */
  readonly webhookUrl: string;
  /** The gateway's connection: role mcp_gateway, which owns mcp_registry only. */
  readonly gatewayUrl: string;
  /** Where it listens, without credentials, to show. */
  readonly shownUrl: string;
  stop(): void;
}

/** The newest PostgreSQL binaries of the machine (Debian's layout); throws saying how to get them. */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const found = versions.map((v) => join(root, v, 'bin')).find((dir) => existsSync(join(dir, 'initdb')));
  if (!found) throw new Error('no PostgreSQL binaries in /usr/lib/postgresql: install them (apt-get install postgresql)');
  return found;
}

/**
 * Runs one of PostgreSQL's programs, as the postgres user the Debian package made when this runs
 * as root (PostgreSQL refuses root); its stdout, or an error with its stderr. A password goes in a
 * password file its connection string names (`passfile=`), never in its environment.
 */
export function runPostgresProgram(command: string, args: readonly string[], options: { readonly input?: string } = {}): string {
  const program = join(postgresBinDir(), command);
  const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, [...args]];
  const result = spawnSync(file, argv, { encoding: 'utf8', ...(options.input !== undefined && { input: options.input }) });
  if (result.status !== 0) throw new Error(`${command} failed: ${(result.stderr || result.stdout).trim()}`);
  return result.stdout;
}

/** Gives a folder to the postgres user when this runs as root, so the cluster it holds can run. */
export function handToPostgres(dir: string): void {
  if (process.getuid?.() !== 0) return;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(dir, id('-u'), id('-g'));
}

/** The port of the cluster in `data` when it is running, from its postmaster.pid; undefined when it is not. */
function runningPort(data: string): number | undefined {
  try {
    runPostgresProgram('pg_ctl', ['-D', data, 'status']);
  } catch {
    return undefined; // not running (pg_ctl status exits 3), or no cluster yet
  }
  const port = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[3]);
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

/**
 * Starts (creating it the first time) the cluster in `dir` on 127.0.0.1:`port`, with a database
 * named `database`, password authentication only and the services' roles, with `secrets`.
 */
export function startLocalPostgres(dir: string, wantedPort: number, database: string, secrets: LocalPostgresSecrets): LocalPostgres {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new TypeError(`startLocalPostgres: database must be a plain name (got ${database})`);
  passwordLiteral(secrets.superuser); // checked before anything is created with it
  let port = wantedPort;
  const run = runPostgresProgram;
  const data = join(dir, 'data');
  if (!existsSync(join(data, 'PG_VERSION'))) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    handToPostgres(dir);
    if (process.getuid?.() === 0) {
      // The postgres user must pass through data/ (mode 0700 for the secrets file's sake) to reach
      // its cluster: traversal only, no listing; the secrets file stays 0600.
      const parent = dirname(dir);
      chmodSync(parent, statSync(parent).mode | 0o001);
    }
    // The superuser's password from a file only the postgres user reads, removed at once.
    const passwordFile = join(dir, 'initdb-password');
    writeFileSync(passwordFile, `${secrets.superuser}\n`, { mode: 0o600 });
    handToPostgres(passwordFile);
    try {
      run('initdb', ['-D', data, '-A', 'scram-sha-256', `--pwfile=${passwordFile}`, '-U', 'postgres', '-E', 'UTF8']);
    } finally {
      rmSync(passwordFile, { force: true });
    }
  }
  // A cluster an earlier start:pg left running (its runner was killed) is taken over, on the port it has.
  const running = runningPort(data);
  if (running === undefined)
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, 'start']);
  else port = running;
  // The superuser's password for psql in a password file (.pgpass format) only the user psql runs
  // as reads, in the cluster's own folder, removed once the cluster is set up.
  const passfile = join(dir, 'psql-passfile');
  writeFileSync(passfile, `127.0.0.1:${port}:*:postgres:${secrets.superuser}\n`, { mode: 0o600 });
  chmodSync(passfile, 0o600); // a file an interrupted run left keeps its mode otherwise
  handToPostgres(passfile);
  // A conninfo value quoted, so a folder with spaces or quotes in its path stays one value.
  const quoted = (value: string) => `'${value.replace(/[\\']/g, '\\$&')}'`;
  const psql = (sql: string, on = 'postgres') =>
    run('psql', [`host=127.0.0.1 port=${port} user=postgres dbname=${on} passfile=${quoted(passfile)}`, '-v', 'ON_ERROR_STOP=1', '-tA'], { input: sql });
  try {
    try {
      // A cluster of an older start:pg took anyone on loopback (trust): it gets the password, then only passwords.
      psql(`ALTER ROLE postgres PASSWORD ${passwordLiteral(secrets.superuser)};`);
    } catch (error) {
      throw new Error(
        `the cluster in ${dir} does not take the password in data/dev-secrets.env (STACK_POSTGRES_PASSWORD): put back the file it was made with, or delete ${dir} to start afresh`,
        { cause: error },
      );
    }
    const hbaFile = join(data, 'pg_hba.conf');
    if (readFileSync(hbaFile, 'utf8') !== passwordOnlyHba) {
      writeFileSync(hbaFile, passwordOnlyHba);
      run('pg_ctl', ['-D', data, 'reload']);
    }
    if (psql(`SELECT 1 FROM pg_database WHERE datname = '${database}'`).trim() !== '1') psql(`CREATE DATABASE ${database}`);
    psql(accessStatements(database, secrets), database);
  } finally {
    rmSync(passfile, { force: true });
  }
  const at = `127.0.0.1:${port}/${database}`;
  return {
    webhookUrl: `postgres://${localPostgresRoles.webhook.role}:${secrets.webhook}@${at}`,
    gatewayUrl: `postgres://${localPostgresRoles.gateway.role}:${secrets.gateway}@${at}`,
    shownUrl: `postgres://${at}`,
    stop() {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
  };
}
