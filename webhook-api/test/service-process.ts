// A webhook service's entry point (src/main.ts, src/deliverer-main.ts) run as its own process, as an
// operator starts it: an environment of only what a shell and the service need, its standard error
// kept (where a refused start-up says why), its exit awaited, its /health waited for.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { dirname, resolve } from 'node:path';
import { until } from '@platform/tool-sdk/testing';
import { sourceCondition } from '@platform/devtools/source-condition';
import { killedIfTestFails } from '@platform/devtools/test-processes';
import { testKeyRing, type StoreLocation } from './harness.ts';

const workspace = resolve(import.meta.dirname, '..');

/** Where a process finds the test's database: DATABASE_URL, or the SQLite file's folder. */
export interface DatabaseEnv {
  readonly DATABASE_URL?: string;
  readonly WEBHOOK_DATA_DIR?: string;
}

/** The variables that point a process at the test's store: its PostgreSQL database, or its SQLite file's folder. */
export const databaseEnvOf = (location: StoreLocation): DatabaseEnv =>
  location.postgresUrl ? { DATABASE_URL: location.postgresUrl } : { WEBHOOK_DATA_DIR: dirname(location.sqlitePath ?? '') };

/** A shell's variables, the database, loopback delivery and quick retries, quiet logs; then `extra`. */
export function serviceEnv(database: DatabaseEnv, extra: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(['PATH', 'HOME', 'LANG'].flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
  return {
    ...inherited,
    ...database,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '50ms,100ms',
    WEBHOOK_POLL_INTERVAL: '100ms',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'test',
    ...extra,
  };
}

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** What it wrote to standard error so far. */
  stderr(): string;
  /** Its exit code once it ended. */
  readonly exited: Promise<number | null>;
  /** Resolves once GET http://127.0.0.1:<port>/health answers; rejects if it exits first. */
  ready(port: number): Promise<void>;
  /** SIGTERM, and its end. */
  stop(): Promise<void>;
}

export function startService(script: 'main.ts' | 'deliverer-main.ts', env: NodeJS.ProcessEnv): ServiceProcess {
  // Killed if its test fails before stopping it: a service left running would hold its port and database.
  const child = killedIfTestFails(
    spawn(process.execPath, [sourceCondition, resolve(workspace, 'src', script)], { cwd: workspace, env, stdio: ['ignore', 'ignore', 'pipe'] }),
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    stderr: () => stderr,
    exited,
    async ready(port) {
      await until(
        async () => {
          if (child.exitCode !== null) throw new Error(`${script} exited: ${stderr}`);
          return fetch(`http://127.0.0.1:${port}/health`).then(
            (r) => r.ok,
            () => false,
          );
        },
        `${script} answers /health`,
        20_000,
      );
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The environment of an API or deliverer child of a delivery test: the parent's, the database, the
 * test key ring (so it decrypts what the test's API encrypted), loopback delivery, quick retries, a
 * one-second lease (so a killed deliverer's work is taken over soon), a quick poll; then `extra`.
 */
export function deliveryChildEnv(database: DatabaseEnv, extra: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _url, WEBHOOK_DATA_DIR: _dir, ...rest } = process.env;
  return {
    ...rest,
    ...database,
    WEBHOOK_ENCRYPTION_KEY: testKeyRing.map(({ id, key }) => `${id}:${key.toString('base64')}`).join(','),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '50ms,100ms,200ms,400ms',
    WEBHOOK_LEASE: '1s',
    WEBHOOK_POLL_INTERVAL: '100ms',
    WEBHOOK_METRICS_TOKEN: 'test-metrics-token-0123456789',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'test',
    ...extra,
  };
}

/** Starts `script` and waits until GET http://127.0.0.1:<port>/health answers. */
export async function startedChild(script: 'main.ts' | 'deliverer-main.ts', env: NodeJS.ProcessEnv, port: number): Promise<ChildProcess> {
  const service = startService(script, env);
  await service.ready(port);
  return service.child;
}

/** Ends a child with `signal` (SIGKILL: as a crash) and waits for its exit. */
export async function killChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}
