// Runs the stack's processes: refuses to start when ports are taken (one line naming every such port
// and its variable), starts each process in order and waits until it is ready before the next, prefixes
// every output line with the process's name, and stops them in the reverse order. Each child is in
// a process group of its own, so a Ctrl-C in the terminal reaches only the runner, which then stops
// the children one by one (tool services deregister while the gateway still listens); each also has
// an IPC channel, so a child whose runner died stops by itself (see the SDK's stopOnSignals).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createServer } from 'node:http';
import { clip, closeServer, listenOn } from '@platform/tool-sdk/internal';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Environment, Listener, ReadyProbe, StackProcess } from './processes.ts';
import { closeGatewaySession, connectToGateway, personToken } from './platform-session.ts';
import { requestFailure } from './request-failure.ts';
import type { Client } from '@modelcontextprotocol/client';
import { sourceCondition } from '@platform/devtools/source-condition';

export interface StackOutput {
  /** One line a process wrote, unprefixed. */
  line(name: string, line: string): void;
  /** A line of the runner's own. */
  note(line: string): void;
}

export interface RunningStack {
  /** What the readiness probes saw, by process name (`12 tools listed`, ...). */
  readonly readiness: ReadonlyMap<string, string>;
  /** Resolves with the name and exit of the first process that stops on its own. */
  readonly failed: Promise<string>;
  /** Stops every process, last started first; resolves when all have exited. */
  stop(): Promise<void>;
}

/** How long one process may take to become ready, by default. */
const defaultReadyTimeoutMs = 60_000;
/** How long one process may take to stop before it is killed. */
const stopTimeoutMs = 10_000;

/**
 * Every listener that cannot listen, as one line (undefined when all can): two variables naming
 * one port, and every port taken or forbidden, so that five taken ports take one run to find, not five.
 */
export async function unusablePorts(processes: readonly StackProcess[]): Promise<string | undefined> {
  const problems: { readonly alone: string; readonly listed: string }[] = [];
  const claimed = new Map<number, string>();
  const toTry: { readonly service: string; readonly listener: Listener }[] = [];
  for (const service of processes) {
    for (const listener of service.listens) {
      const other = claimed.get(listener.port);
      if (other === undefined) {
        claimed.set(listener.port, listener.variable);
        toTry.push({ service: service.name, listener });
        continue;
      }
      const same = `${other} and ${listener.variable} name the same port, ${listener.port}`;
      problems.push({ alone: `${same}; set one of them to another port.`, listed: same });
    }
  }
  const tried = await Promise.all(toTry.map(({ listener }) => tryListen(listener)));
  tried.forEach((problem, index) => {
    const at = toTry[index];
    if (problem === undefined || at === undefined) return;
    const { host, port, variable } = at.listener;
    problems.push({ alone: `${at.service} cannot start: ${problem.message}`, listed: `port ${port} on ${host} ${problem.why} (${variable}, ${at.service})` });
  });
  if (problems.length === 0) return undefined;
  if (problems.length === 1) return problems[0]?.alone;
  return `${problems.length} ports cannot be used, so nothing was started: ${problems.map((p) => p.listed).join('; ')}; set each variable named to another port.`;
}

/** Why `listener` cannot listen, whole and in short; undefined when it can. */
async function tryListen(listener: Listener): Promise<{ readonly message: string; readonly why: string } | undefined> {
  const server = createServer();
  try {
    await listenOn(server, { host: listener.host, port: listener.port, portVariable: listener.variable });
    await closeServer(server);
    return undefined;
  } catch (error) {
    const { message } = error as Error;
    // listenOn's "port N on H <why>; set V to another port", without what is said once for all.
    const why = /^port \d+ on \S+ (.*); set \S+ to another port$/.exec(message)?.[1] ?? message;
    return { message, why };
  }
}

/** What a probe keeps between its looks: the person's token and one MCP session, not one per look. */
interface ProbeState {
  token?: string;
  client?: Client;
  /** What the look under way is trying (`GET <url>`, ...), named with its failure. */
  trying?: string;
  /** What the last look saw instead, for the message when it never gets ready. */
  lastProblem?: string;
}

/** One look at whether a process is ready: a description of what was seen, or undefined. */
async function probe(ready: ReadyProbe, state: ProbeState): Promise<string | undefined> {
  // What is being tried, so that a failure names it beside its cause.
  const trying = (what: string) => {
    state.trying = what;
  };
  try {
    if (ready.kind === 'http') {
      trying(`GET ${ready.url}`);
      const response = await fetch(ready.url, { signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      if (response.ok) return 'healthy';
      state.lastProblem = `GET ${ready.url} answered ${response.status}`;
      return undefined;
    }
    trying(`POST ${ready.platformUrl}/dev/token (${ready.person}'s token for the gateway)`);
    state.token ??= (await personToken(ready.platformUrl, ready.person, ready.mcpUrl)).accessToken;
    trying(`connecting an MCP client to ${ready.mcpUrl}`);
    state.client ??= await connectToGateway(ready.mcpUrl, state.token, 'npm-start-readiness');
    trying(`tools/list at ${ready.mcpUrl}`);
    const { tools } = await state.client.listTools();
    if (tools.length > 0) return `the gateway lists ${tools.length} tools to ${ready.person}`;
    state.lastProblem = `the gateway lists no tools to ${ready.person} yet`;
    return undefined;
  } catch (error) {
    state.lastProblem = `${state.trying ?? 'the readiness check'}: ${requestFailure(error)}`;
    return undefined;
  }
}

/** How long one look may take: a service that accepts a connection and never answers is not ready. */
const probeTimeoutMs = 5_000;

/** One probe, bounded in time, so a hung service still meets the ready deadline and a Ctrl-C. */
async function lookOnce(ready: ReadyProbe, state: ProbeState, deadline: number): Promise<string | undefined> {
  const waitMs = Math.max(100, Math.min(probeTimeoutMs, deadline - Date.now()));
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      state.lastProblem = `${state.trying ?? 'the readiness check'}: no answer within ${waitMs} ms`;
      resolve(undefined);
    }, waitMs);
  });
  try {
    return await Promise.race([probe(ready, state), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

async function endProbe(state: ProbeState): Promise<void> {
  await closeGatewaySession(state.client).catch(() => undefined);
}

/**
 * Starts `processes` in order, each once the one before is ready. Rejects, after stopping what it
 * started, when one fails to start or `signal` aborts the start.
 */
export async function startStack(
  processes: readonly StackProcess[],
  env: Environment,
  output: StackOutput,
  signal?: AbortSignal,
  readyTimeoutMs = defaultReadyTimeoutMs,
): Promise<RunningStack> {
  const started: { service: StackProcess; child: ChildProcess; exited: Promise<void> }[] = [];
  const readiness = new Map<string, string>();
  let stopping = false;
  let firstFailure: string | undefined;
  let reportFailure: (what: string) => void = () => undefined;
  const failed = new Promise<string>((resolve) => {
    reportFailure = resolve;
  });

  const stop = async () => {
    stopping = true;
    for (const { service, child, exited } of started.toReversed()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      output.note(`stopping ${service.name}`);
      child.kill('SIGTERM');
      const inTime = await Promise.race([exited.then(() => true), sleep(stopTimeoutMs, false)]);
      if (!inTime) {
        output.note(`${service.name} did not stop within ${stopTimeoutMs / 1000} s; killing it`);
        child.kill('SIGKILL');
        await exited;
      }
    }
  };

  for (const service of processes) {
    if (service.writes) {
      mkdirSync(dirname(service.writes.path), { recursive: true });
      writeFileSync(service.writes.path, service.writes.text);
    }
    // A Node service gets an IPC channel (it stops when the runner is gone); another program (haproxy) does not.
    const child =
      typeof service.entry === 'string'
        ? spawn(process.execPath, [sourceCondition, service.entry], {
            env: { ...env, ...service.env },
            stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
            detached: true,
          })
        : spawn(service.entry.command, [...service.entry.args], { env: { ...env, ...service.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    // The last line the process wrote to stderr: why it stopped, said where the failure is reported.
    let lastWords = '';
    // A program that cannot be started (not installed) is reported as it stops, not thrown at the runner.
    child.once('error', (error) => {
      lastWords = error.message;
    });
    const outputDone = [child.stdout, child.stderr]
      .flatMap((stream) => (stream ? [stream] : []))
      .map((stream) => {
        const lines = createInterface({ input: stream, crlfDelay: Infinity });
        lines.on('line', (line) => {
          output.line(service.name, line);
          if (stream === child.stderr && line.trim() !== '') lastWords = line.trim();
        });
        return once(lines, 'close');
      });
    const exited = once(child, 'exit').then(async ([code, signal]) => {
      await Promise.all(outputDone);
      if (stopping || firstFailure) return;
      const exit = signal === null ? `exit code ${String(code)}` : String(signal);
      firstFailure = `${service.name} stopped (${exit})${lastWords && `: ${clip(lastWords, 500)}`}`;
      reportFailure(firstFailure);
    });
    started.push({ service, child, exited });

    const state: ProbeState = {};
    const deadline = Date.now() + readyTimeoutMs;
    let seen: string | undefined;
    while (!(seen = await lookOnce(service.ready, state, deadline))) {
      if (firstFailure || signal?.aborted || Date.now() > deadline) {
        await endProbe(state);
        const why =
          firstFailure ??
          (signal?.aborted
            ? 'stopped while starting'
            : `${service.name} was not ready within ${readyTimeoutMs / 1000} s (last check: ${state.lastProblem ?? 'no answer'})`);
        await stop();
        throw new Error(why);
      }
      await sleep(state.client ? 250 : 100);
    }
    await endProbe(state);
    readiness.set(service.name, seen);
  }
  return { readiness, failed, stop };
}
