// `npm start`: runs every service of the stack that exists in this checkout, each in its own
// process with its output prefixed, and stops them all on Ctrl-C or when one of them dies.
import { spawn, type ChildProcess } from 'node:child_process';
import { prettyFactory } from 'pino-pretty';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { devSecretsFile, loadDevSecrets, secretNamesOf } from './dev-secrets.ts';
import { mainOf, presentServices, repoRoot, serviceSecretNames, services } from './services.ts';

const present = presentServices();
if (present.length === 0) {
  console.error(`No service of the stack exists in this checkout yet (looked for ${services.map((s) => `${s.workspace}/src/main.ts`).join(', ')}).`);
  process.exit(1);
}

const seedPath = process.env.PLATFORM_SEED ?? join(repoRoot, 'dev-platform/seed.json');
const secrets = loadDevSecrets([...secretNamesOf(seedPath), ...serviceSecretNames], devSecretsFile(repoRoot), process.env);
const childEnv = { ...process.env, ...secrets };

// Services log JSON (for log pipelines); a person watching npm start reads them formatted, unless
// LOG_FORMAT=json asks for the raw lines.
const pretty =
  process.env.LOG_FORMAT === 'json'
    ? undefined
    : prettyFactory({ colorize: process.stdout.isTTY, ignore: 'pid,hostname,name', translateTime: 'SYS:HH:MM:ss', singleLine: true });

function display(line: string): string {
  if (!pretty || !line.startsWith('{')) return `${line}\n`;
  try {
    return pretty(line);
  } catch {
    return `${line}\n`;
  }
}

const children = new Map<string, ChildProcess>();
let stopping = false;

function stopAll(code: number): void {
  if (stopping) return;
  stopping = true;
  for (const child of children.values()) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 5_000).unref();
  const waitForAll = [...children.values()].map((child) => new Promise((resolve) => child.once('exit', resolve)));
  void Promise.all(waitForAll).then(() => process.exit(code));
}

for (const service of present) {
  const env = { ...childEnv, ...service.env?.(secrets, process.env) };
  const child = spawn(process.execPath, [mainOf(service)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env });
  children.set(service.name, child);
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      process.stdout.write(`${service.name.padEnd(13)}| ${display(line)}`);
    });
  }
  child.on('exit', (code, signal) => {
    children.delete(service.name);
    if (!stopping) {
      console.error(`${service.name} stopped (${signal ?? `exit code ${String(code)}`}); stopping the stack`);
      stopAll(1);
    }
  });
}

console.log(`Starting ${present.map((s) => `${s.name} (${s.address})`).join(', ')}. Ctrl-C stops everything.`);
console.log(`Local secrets (client secrets, API tokens): ${devSecretsFile(repoRoot)}`);
process.on('SIGINT', () => {
  stopAll(0);
});
process.on('SIGTERM', () => {
  stopAll(0);
});
