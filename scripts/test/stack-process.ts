// The stack's commands run the way a person runs them: `npm start`, `npm run demo`, ... as child
// processes in a process group of their own (a terminal's Ctrl-C reaches the whole group), on free
// ports and a data folder of the test's own, with the output kept for assertions and secret scans.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devSecrets } from '@platform/dev-platform/testing';
import { killedIfTestFails } from '@platform/devtools/test-processes';
import { repoRoot } from '../src/repo-root.ts';

export interface StackEnvironment {
  readonly env: Record<string, string>;
  readonly platformUrl: string;
  readonly mcpUrl: string;
  readonly webhookApiUrl: string;
  /** Every secret handed to the stack, for the log scans. */
  readonly secrets: readonly string[];
}

async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  const [outcome] = (await Promise.race([once(server, 'listening').then(() => ['listening']), once(server, 'error')])) as [unknown];
  if (outcome !== 'listening') return false;
  await new Promise((resolve) => server.close(resolve));
  return true;
}

/**
 * Where the kernel takes the local ports of outgoing connections: a port in that range, free when
 * looked at, can be taken by any connection another test opens before the stack listens on it.
 */
function ephemeralPortsStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * The first of `count` consecutive free loopback ports (start:pg puts its second API and deliverers
 * on the next ones), below the ephemeral range so that no outgoing connection takes one meanwhile.
 */
async function freePorts(count: number): Promise<number> {
  const below = Math.min(ephemeralPortsStart(), 32_768);
  for (;;) {
    const first = 11_000 + Math.floor(Math.random() * (below - 11_000 - count)); // past 10080, which fetch refuses
    const ports = Array.from({ length: count }, (_, i) => first + i);
    if ((await Promise.all(ports.map(portIsFree))).every(Boolean)) return first;
  }
}

/** One free loopback port below the ephemeral range (the demo's trace receiver). */
export const freePort = () => freePorts(1);

/** The secrets the tests' stacks run with: the seed's, an ingest and a metrics token. */
export const stackSecrets: Readonly<Record<string, string>> = {
  ...devSecrets,
  WEBHOOK_INGEST_TOKEN: 'test-ingest-token-of-the-stack',
  WEBHOOK_METRICS_TOKEN: 'test-metrics-token-of-the-stack',
  MCP_METRICS_TOKEN: 'test-gateway-metrics-token-of-the-stack',
  METRICS_TOKEN: 'test-tool-metrics-token-of-the-stack',
  PLATFORM_METRICS_TOKEN: 'test-platform-metrics-token-of-the-stack',
};

/** Only what a person's shell would carry: no variable of the test run leaks into a command. */
export function shellVariables(): Record<string, string> {
  return Object.fromEntries(['PATH', 'HOME', 'LANG', 'TERM'].flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
}

/** An environment for one stack: every port free, its own data folder, the seed's secrets, an ingest and a metrics token. */
export async function stackEnvironment(extra: Record<string, string> = {}): Promise<StackEnvironment> {
  const [platform, mcp, api, registry, tools, receiver, replicas] = await Promise.all([
    freePorts(2),
    freePorts(1),
    freePorts(4),
    freePorts(1),
    freePorts(2), // the tool service's gRPC port, and its /metrics on the next
    freePorts(1),
    freePorts(4),
  ]);
  return {
    env: {
      ...shellVariables(),
      ...stackSecrets,
      PLATFORM_PORT: String(platform),
      PLATFORM_AI_PORT: String(platform + 1),
      MCP_PORT: String(mcp),
      REGISTRY_ADDRESS: `127.0.0.1:${registry}`,
      CALLBACK_ADDRESS: `127.0.0.1:${tools}`,
      WEBHOOK_API_PORT: String(api),
      // start:pg's gateway replicas (HTTP on it and + 2, registries on + 1 and + 3).
      MCP_REPLICA_PORT: String(replicas),
      DEMO_RECEIVER_PORT: String(receiver),
      WEBHOOK_DATA_DIR: mkdtempSync(join(tmpdir(), 'stack-data-')),
      LOG_FORMAT: 'json',
      ...extra,
    },
    platformUrl: `http://127.0.0.1:${platform}`,
    mcpUrl: `http://127.0.0.1:${mcp}/mcp`,
    webhookApiUrl: `http://127.0.0.1:${api}`,
    secrets: Object.values(stackSecrets),
  };
}

export interface CommandRun {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves once a line equal to (or containing) `text` was written; rejects when the command exits first or after `timeoutMs`. */
  waitForLine(text: string, timeoutMs: number): Promise<void>;
  /** What a terminal's Ctrl-C does: SIGINT to the command's whole process group. */
  interrupt(): void;
  /** The exit code once the command ended. */
  readonly exited: Promise<number | null>;
}

/**
 * A folder npm runs the repository's commands in as if it were the repository: the root's scripts
 * (word for word), `scripts/`, `node_modules/` and `.npmrc` linked, and what it holds of its own: `.env` when
 * given, and `data/`, where the stack keeps its files. Nothing the test writes lands in the repository.
 */
export function projectCopy(dotEnv?: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'stack-project-'));
  const { scripts } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'stack-project-copy', private: true, type: 'module', scripts }));
  // .npmrc: its node-options make every npm command run the SDK from its TypeScript sources, as in the repository.
  for (const linked of ['scripts', 'node_modules', '.npmrc']) symlinkSync(join(repoRoot, linked), join(folder, linked));
  if (dotEnv !== undefined) writeFileSync(join(folder, '.env'), dotEnv, { mode: 0o600 });
  return folder;
}

/** `npm <args>` from the repository root (or `cwd`), as a person types it. */
export function runNpm(args: readonly string[], env: Record<string, string>, cwd = repoRoot): CommandRun {
  // Killed with its whole group (npm, the shell, the services) if its test fails before stopping it.
  const child = killedIfTestFails(spawn('npm', [...args], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  const listeners = new Set<() => void>();
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      for (const listener of listeners) listener();
    });
  }
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    output: () => output,
    async waitForLine(text, timeoutMs) {
      const seen = () => output.split('\n').some((line) => line.includes(text));
      if (seen()) return;
      await new Promise<void>((resolve, reject) => {
        const done = (error?: Error) => {
          listeners.delete(check);
          clearTimeout(timer);
          if (error) reject(error);
          else resolve();
        };
        const check = () => {
          if (seen()) done();
        };
        const timer = setTimeout(() => {
          done(new Error(`no line with "${text}" within ${timeoutMs} ms; the output:\n${output}`));
        }, timeoutMs);
        listeners.add(check);
        void exited.then((code) => {
          if (!seen()) done(new Error(`npm ${args.join(' ')} exited (${String(code)}) before "${text}"; the output:\n${output}`));
        });
      });
    },
    interrupt() {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGINT');
      } catch (error) {
        // The whole group has ended already: nothing left to interrupt.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    },
    exited,
  };
}

/** The stack's ports still taken by a process (none once the stack has stopped). */
export async function takenPorts(env: Record<string, string>): Promise<number[]> {
  const ports = ['PLATFORM_PORT', 'PLATFORM_AI_PORT', 'MCP_PORT', 'WEBHOOK_API_PORT'].map((name) => Number(env[name]));
  ports.push(...['REGISTRY_ADDRESS', 'CALLBACK_ADDRESS'].map((name) => Number(env[name]?.split(':')[1])));
  const free = await Promise.all(ports.map(portIsFree));
  return ports.filter((_, i) => !free[i]);
}
