// `npm run demo`: the scripted demo against the stack `npm start` runs (see flow.ts), the one
// data/stack.json records unless variables place it (see ../stack/locator.ts); exits 0 only when every
// step was seen. `npm run demo -- --start` starts the stack itself first (its
// output goes to data/demo-stack.log) and stops it at the end. Ctrl-C ends the step under way,
// cleans up what the demo made, stops a stack it started, and exits 130.
import '../dot-env.ts'; // first: .env is in process.env before any module reads it
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { readyLine } from '../stack/banner.ts';
import { loadDemoTracePort } from '../stack/settings.ts';
import { runDemo } from './flow.ts';
import { demoNextSteps } from './next-steps.ts';
import { devSecretsFile, readDevSecrets } from '@platform/devtools/dev-secrets';
import { locateStack, type LocatedStack } from '../stack/locator.ts';
import { printOneTrace, startTraceReceiver, traceHint, traceVariables } from './trace.ts';
import type { OtlpReceiver } from '../trace/otlp-receiver.ts';
import { demoPerson, stackAddresses, type Environment } from '../stack/processes.ts';
import { repoRoot } from '../repo-root.ts';
import { sourceCondition } from '@platform/devtools/source-condition';

const print = (line: string) => process.stdout.write(`${line}\n`);
const fail = (message: string, code = 1): never => {
  process.stderr.write(`${message}\n`);
  process.exit(code);
};

const env: Environment = process.env;

function commandLine(): { start: boolean; trace: boolean; svgFile: string | undefined; stack: LocatedStack } {
  let start: boolean;
  let trace: boolean;
  let svgFile: string | undefined;
  try {
    const { values } = parseArgs({
      options: { start: { type: 'boolean', default: false }, trace: { type: 'boolean', default: false }, 'trace-svg': { type: 'string' } },
    });
    ({ start } = values);
    // A picture of the trace is asked for by its file, relative to where npm was run (npm runs scripts at the root).
    svgFile = values['trace-svg'] === undefined ? undefined : resolve(env.INIT_CWD ?? process.cwd(), values['trace-svg']);
    trace = values.trace || svgFile !== undefined;
  } catch (error) {
    return fail(`npm run demo: ${(error as Error).message} (usage: npm run demo [-- --start] [--trace] [--trace-svg <file>])`, 2);
  }
  try {
    // A stack the demo starts is placed by the variables, as npm start places it.
    if (start) return { start, trace, svgFile, stack: { addresses: stackAddresses(env, 'embedded'), found: '', unreachable: '' } };
    return { start, trace, svgFile, stack: locateStack(env) };
  } catch (error) {
    return fail(`npm run demo: ${(error as Error).message}`, 2);
  }
}
const { start, trace, svgFile, stack: located } = commandLine();
const at = located.addresses;

async function platformAnswers(): Promise<boolean> {
  return fetch(`${at.platformUrl}/health`, { signal: AbortSignal.timeout(2_000) }).then(
    (response) => response.ok,
    () => false,
  );
}

interface StartedStack {
  readonly child: ChildProcess;
  readonly exited: Promise<unknown>;
}

/**
 * npm start as a child in a process group of its own (a Ctrl-C reaches the demo, which cleans up
 * before it stops the stack), its output into a log file; resolves once the stack is ready.
 */
async function startStack(extraEnv: Record<string, string>): Promise<StartedStack> {
  const logFile = join(repoRoot, 'data/demo-stack.log');
  mkdirSync(join(repoRoot, 'data'), { recursive: true, mode: 0o700 });
  print(`starting the stack (npm start; its output goes to ${logFile})`);
  const child = spawn(process.execPath, [sourceCondition, join(repoRoot, 'scripts/src/stack/start-all-main.ts')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, ...extraEnv },
    detached: true,
  });
  const exited = once(child, 'exit');
  const log = createWriteStream(logFile, { mode: 0o600 });
  let refusal = '';
  child.stderr.on('data', (chunk: Buffer) => {
    refusal += chunk.toString();
    log.write(chunk);
  });
  const ready = new Promise<boolean>((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      log.write(`${line}\n`);
      if (line === readyLine) resolve(true);
    });
    void exited.then(() => {
      resolve(false);
    });
  });
  if (!(await ready)) throw new Error(`the stack did not start: ${refusal.trim() || `see ${logFile}`}`);
  return { child, exited };
}

const interrupt = new AbortController();
process.on('SIGINT', () => {
  if (interrupt.signal.aborted) process.exit(130);
  interrupt.abort();
});

let stack: StartedStack | undefined;
let receiver: OtlpReceiver | undefined;
let failed = false;
try {
  if (trace) {
    const port = loadDemoTracePort(env);
    receiver = await startTraceReceiver(port).catch((error: unknown) => {
      throw new Error(`the trace receiver could not listen on 127.0.0.1:${port} (${(error as Error).message}); set DEMO_TRACE_PORT to another port`);
    });
    if (!start) print(traceHint(receiver));
  }
  if (start) {
    if (await platformAnswers())
      throw new Error(`something already answers at ${at.platformUrl}: run npm run demo without --start against it, or stop it first`);
    stack = await startStack(receiver ? traceVariables(receiver) : {});
  } else if (await platformAnswers()) {
    print(located.found);
  } else {
    throw new Error(`the stack is not running (${located.unreachable}): start it with npm start in another terminal, or run npm run demo -- --start`);
  }
  // The ingest token npm start generated (or the one it was given).
  const ingestToken = env.WEBHOOK_INGEST_TOKEN || readDevSecrets(devSecretsFile(repoRoot)).WEBHOOK_INGEST_TOKEN;
  if (!ingestToken) throw new Error(`no WEBHOOK_INGEST_TOKEN: set it to the one the webhook API runs with (npm start keeps it in ${devSecretsFile(repoRoot)})`);
  print(`The telemetry demo, against ${at.mcpUrl}\n`);
  await runDemo({ addresses: at, ingestToken, print, signal: interrupt.signal });
  print('\nDemo complete: every step was seen.\n');
  if (receiver) await printOneTrace(at, receiver, demoPerson, print, svgFile);
  for (const line of demoNextSteps(at, demoPerson)) print(line);
} catch (error) {
  failed = true;
  process.stderr.write(`\nDemo failed: ${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  if (stack) {
    print('stopping the stack');
    stack.child.kill('SIGTERM');
    await stack.exited;
  }
  await receiver?.close();
}
process.exit(interrupt.signal.aborted ? 130 : failed ? 1 : 0);
