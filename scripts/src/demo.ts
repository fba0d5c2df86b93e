// `npm run demo`: the scripted demo against the stack `npm start` runs (see demo-flow.ts); exits 0
// only when every step was seen. `npm run demo -- --start` starts the stack itself first (its
// output goes to data/demo-stack.log) and stops it at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { readyLine } from './stack-banner.ts';
import { DemoStepFailed, runDemo } from './demo-flow.ts';
import { devSecretsFile, readDevSecrets } from './dev-secrets.ts';
import { repoRoot, stackAddresses } from './stack.ts';

const { values } = parseArgs({ options: { start: { type: 'boolean', default: false } } });
const at = stackAddresses(process.env, 'embedded');
const print = (line: string) => process.stdout.write(`${line}\n`);

async function platformAnswers(): Promise<boolean> {
  return fetch(`${at.platformUrl}/health`, { signal: AbortSignal.timeout(2_000) }).then(
    (response) => response.ok,
    () => false,
  );
}

/** npm start as a child, its output into a log file; resolves once it printed that the stack is ready. */
async function startStack(): Promise<ChildProcess> {
  const logFile = join(repoRoot, 'data/demo-stack.log');
  mkdirSync(join(repoRoot, 'data'), { recursive: true });
  print(`starting the stack (npm start; its output goes to ${logFile})`);
  const stack = spawn(process.execPath, [join(repoRoot, 'scripts/src/start-all.ts')], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  const log = createWriteStream(logFile);
  stack.stderr.pipe(log, { end: false });
  const lines = createInterface({ input: stack.stdout });
  const ready = new Promise<boolean>((resolve) => {
    lines.on('line', (line) => {
      log.write(`${line}\n`);
      if (line === readyLine) resolve(true);
    });
    stack.once('exit', () => {
      resolve(false);
    });
  });
  if (!(await ready)) throw new Error(`the stack did not start; see ${logFile}`);
  return stack;
}

let stack: ChildProcess | undefined;
let failed = false;
try {
  if (values.start) {
    if (await platformAnswers())
      throw new Error(`something already answers at ${at.platformUrl}: run npm run demo without --start against it, or stop it first`);
    stack = await startStack();
  } else if (!(await platformAnswers())) {
    throw new Error(
      `the stack is not running (nothing answers at ${at.platformUrl}): start it with npm start in another terminal, or run npm run demo -- --start`,
    );
  }
  // The ingest token npm start generated (or the one it was given).
  const ingestToken = process.env.WEBHOOK_INGEST_TOKEN ?? readDevSecrets(devSecretsFile(repoRoot)).WEBHOOK_INGEST_TOKEN;
  if (!ingestToken) throw new Error(`no WEBHOOK_INGEST_TOKEN: set it to the one the webhook API runs with (npm start keeps it in ${devSecretsFile(repoRoot)})`);
  print(`The telemetry demo, against ${at.mcpUrl}\n`);
  await runDemo({ addresses: at, ingestToken, print });
  print('\nDemo complete: every step was seen.');
} catch (error) {
  failed = true;
  const message = error instanceof DemoStepFailed || error instanceof Error ? error.message : String(error);
  process.stderr.write(`\nDemo failed: ${message}\n`);
} finally {
  if (stack) {
    print('stopping the stack');
    stack.kill('SIGTERM');
    await once(stack, 'exit');
  }
}
process.exit(failed ? 1 : 0);
