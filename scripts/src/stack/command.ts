// The command-line side of running the stack (npm start, npm run start:pg): service output shown
// formatted and prefixed, taken ports refused in one line before anything starts, the banner and
// data/stack.json (the addresses, for a second terminal) once everything is ready, and Ctrl-C (or
// SIGTERM) stopping the services in order. The process exits 0 after a requested stop, 1 when a
// service failed.
import { isPlatformError } from '@platform/tool-sdk';
import { prettyFactory } from 'pino-pretty';
import { loadOutputFormat, type OutputFormat } from './settings.ts';
import { metricsTokenSource, seedFacts, seededPeople, stackBanner } from './banner.ts';
import { stackCertificates, stackTlsFolder, type StackCertificates } from './certificates.ts';
import { readStackFileOrAbsent, removeStackFile, shownStackFile, stackFilePath, writeStackFile } from './stack-file.ts';
import { startStack, unusablePorts, type StackOutput } from './runner.ts';
import { stackAddresses, stackProcesses, type Environment, type Topology } from './processes.ts';

export interface StackCommand {
  /** How the command is called, prefixing its own lines. */
  readonly label: string;
  readonly topology: Topology;
  readonly env: Environment;
  readonly secrets: Readonly<Record<string, string>>;
  readonly seedPath: string;
  readonly secretsFile: string;
  /** Run after the services stopped (start:pg stops its PostgreSQL here). */
  readonly afterStop?: () => Promise<void> | void;
}

/** Set once standard output is a broken pipe: nothing more is written to it. */
let outputGone = false;

function consoleOutput(label: string, format: OutputFormat): StackOutput {
  // Services log JSON lines (for log pipelines); a person reads them formatted unless LOG_FORMAT=json.
  const pretty =
    format === 'json'
      ? undefined
      : prettyFactory({ colorize: process.stdout.isTTY, ignore: 'pid,hostname,name', translateTime: 'SYS:HH:MM:ss', singleLine: true });
  const display = (line: string) => {
    if (!pretty || !line.startsWith('{')) return `${line}\n`;
    try {
      return pretty(line);
    } catch {
      return `${line}\n`;
    }
  };
  const write = (text: string) => {
    if (!outputGone) process.stdout.write(text);
  };
  return {
    line: (name, line) => {
      write(`${name.padEnd(13)}| ${display(line)}`);
    },
    note: (line) => {
      write(`${label.padEnd(13)}| ${line}\n`);
    },
  };
}

export async function runStackFromCommandLine(command: StackCommand): Promise<void> {
  const { topology, env, secrets } = command;
  const fail = async (message: string): Promise<never> => {
    process.stderr.write(`${message}\n`);
    await command.afterStop?.();
    process.exit(1);
  };

  let processes, format, certificates: StackCertificates;
  try {
    format = loadOutputFormat(env);
    // Placed first, so that a bad address is said before certificates are issued for it.
    stackProcesses(env, secrets, topology, seedFacts(command.seedPath));
    try {
      certificates = await stackCertificates(env);
    } catch (error) {
      return await fail(`${command.label} cannot start: the gRPC certificates cannot be written in ${stackTlsFolder(env)}: ${(error as Error).message}`);
    }
    processes = stackProcesses(env, secrets, topology, seedFacts(command.seedPath), certificates.files);
  } catch (error) {
    if (isPlatformError(error) && error.code === 'SETTINGS_INVALID') return fail(`${command.label} cannot start: ${error.message}`);
    throw error;
  }
  // One data folder holds one stack: a second would share its SQLite file and replace its stack file.
  const stackFile = stackFilePath(env);
  const recorded = readStackFileOrAbsent(stackFile);
  if (recorded.kind === 'running') {
    const { command: other, pid, addresses } = recorded.stack;
    return fail(
      `${command.label} cannot start: ${shownStackFile(stackFile)} names a stack that is running (${other}, pid ${pid}, ${addresses.platformUrl}): stop it first, or set WEBHOOK_DATA_DIR to another folder`,
    );
  }
  const taken = await unusablePorts(processes);
  if (taken) return fail(taken);

  const output = consoleOutput(command.label, format);
  output.note(certificates.note);
  output.note(`starting ${processes.map((p) => p.name).join(', ')}, each once the one before is ready`);

  // A terminal's Ctrl-C can arrive twice (npm passes it on too); a second one a moment later
  // leaves at once, and each service then stops by itself as its IPC channel closes.
  const stopRequested = new AbortController();
  let firstSignalAt = 0;
  const onSignal = () => {
    if (firstSignalAt === 0) {
      firstSignalAt = Date.now();
      stopRequested.abort();
    } else if (Date.now() - firstSignalAt > 1_000) {
      output.note('leaving at once');
      process.exit(1);
    }
  };
  // A closed terminal (SIGHUP) or a reader of the output that went away (`npm start | head`) stops
  // the stack as Ctrl-C does; nothing is written to a broken pipe after that.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    outputGone = true;
    onSignal();
  });

  const stack = await startStack(processes, env, output, stopRequested.signal).catch(async (error: unknown) => {
    if (!stopRequested.signal.aborted) return fail((error as Error).message);
    await command.afterStop?.();
    process.exit(0);
  });
  const addresses = stackAddresses(env, topology);
  // A second terminal's demo and token find the stack here; every way out but SIGKILL removes it.
  writeStackFile(stackFile, { command: command.label, pid: process.pid, startedAt: new Date().toISOString(), addresses });
  process.once('exit', () => {
    removeStackFile(stackFile, process.pid);
  });
  const banner = stackBanner({
    processes,
    readiness: stack.readiness,
    addresses,
    people: seededPeople(command.seedPath),
    secretsFile: command.secretsFile,
    stackFile: shownStackFile(stackFile),
    metricsToken: metricsTokenSource(env),
  });
  if (!outputGone) process.stdout.write(banner);

  const requested = new Promise<'requested'>((resolve) => {
    if (stopRequested.signal.aborted) resolve('requested');
    stopRequested.signal.addEventListener('abort', () => {
      resolve('requested');
    });
  });
  const outcome = await Promise.race([requested, stack.failed]);
  if (outcome !== 'requested') output.note(`${outcome}; stopping the stack`);
  removeStackFile(stackFile, process.pid);
  await stack.stop();
  await command.afterStop?.();
  output.note('stopped');
  process.exit(outcome === 'requested' ? 0 : 1);
}
