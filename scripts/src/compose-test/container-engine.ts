// The container engine the compose test drives: what the machine lacks to run it (said in one
// line), the Docker daemon (the running one, or one started here and stopped at the end), and the
// docker and docker-compose commands run as children whose output is kept for the message of a
// command that failed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The Debian packages the test needs, by the command each brings. */
const needed: readonly (readonly [command: string, debianPackage: string])[] = [
  ['dockerd', 'docker.io'],
  ['docker', 'docker.io'],
  ['docker-compose', 'docker-compose'],
  ['debootstrap', 'debootstrap'],
];

const onPath = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

/** Why this machine cannot run the compose test, in one line; undefined when it can. */
export function missingForContainers(): string | undefined {
  const missing = [...new Set(needed.filter(([command]) => !onPath(command)).map(([, debianPackage]) => debianPackage))];
  const root = process.getuid?.() === 0;
  if (root && missing.length === 0) return undefined;
  const wants = [...(root ? [] : ['root (dockerd and debootstrap run as root)']), ...(missing.length > 0 ? [`the Debian packages ${missing.join(', ')}`] : [])];
  return `the compose test needs ${wants.join(' and ')}`;
}

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end (in this process's environment unless `env` is given); rejects with its last stderr lines when it exits non-zero (unless `allowFailure`). */
export async function run(
  command: string,
  args: readonly string[],
  options: { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string; readonly allowFailure?: boolean } = {},
): Promise<CommandResult> {
  const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject); // not started (not installed)
    child.once('close', resolve);
  });
  const result = { code: code ?? 1, stdout, stderr };
  if (result.code !== 0 && !options.allowFailure) {
    const tail = stderr.trim().split('\n').slice(-5).join(' | ') || stdout.trim().split('\n').slice(-3).join(' | ');
    throw new Error(`${command} ${args.slice(0, 3).join(' ')} exited ${result.code}: ${tail}`);
  }
  return result;
}

const daemonAnswers = async () => (await run('docker', ['info', '--format', '{{.ServerVersion}}'], { allowFailure: true })).code === 0;

export interface ContainerDaemon {
  /** Whether this run started it (and so stops it). */
  readonly started: boolean;
  stop(): Promise<void>;
}

/** The running Docker daemon, or one started in the background (its log in `logFile`) once its socket answers. */
export async function ensureDaemon(logFile: string, timeoutMs = 60_000): Promise<ContainerDaemon> {
  if (await daemonAnswers()) return { started: false, stop: () => Promise.resolve() };
  mkdirSync(dirname(logFile), { recursive: true });
  const log = createWriteStream(logFile);
  const daemon: ChildProcess = spawn('dockerd', [], { stdio: ['ignore', 'pipe', 'pipe'] });
  daemon.stdout?.pipe(log);
  daemon.stderr?.pipe(log);
  const exited = new Promise((resolve) => daemon.once('exit', resolve));
  const state = { gone: false };
  void exited.then(() => (state.gone = true));
  const deadline = Date.now() + timeoutMs;
  while (!(await daemonAnswers())) {
    if (state.gone) throw new Error(`dockerd exited while starting: see ${logFile}`);
    if (Date.now() > deadline) {
      daemon.kill('SIGTERM');
      throw new Error(`dockerd did not answer within ${timeoutMs / 1000} s: see ${logFile}`);
    }
    await sleep(500); // polling the socket: dockerd announces readiness only in its log
  }
  return {
    started: true,
    async stop() {
      if (state.gone) return;
      daemon.kill('SIGTERM');
      await exited;
    },
  };
}
