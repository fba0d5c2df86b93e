// How every service's main.ts starts and stops: a start-up failure is one line naming what to fix
// (never a stack trace, never a secret), a port in use names the variable that moves it, and a
// signal stops the parts in order, with a deadline.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { Logger } from 'pino';

/** Prints `<service> cannot start: <reason>` on one line and ends the process with code 1. */
export function failStartup(service: string, error: unknown): never {
  const reason = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${service} cannot start: ${reason.replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(1);
}

/** Runs a start-up step; if it throws (or its promise rejects), fails the start-up with its message. */
export function exitOnStartupFailure<T>(service: string, step: () => Promise<T>): Promise<T>;
/** Runs a synchronous start-up step (such as loading the settings); if it throws, fails the start-up with its message. */
export function exitOnStartupFailure<T>(service: string, step: () => T): T;
export function exitOnStartupFailure<T>(service: string, step: () => T | Promise<T>): T | Promise<T> {
  try {
    const result = step();
    return result instanceof Promise ? result.catch((error: unknown) => failStartup(service, error)) : result;
  } catch (error) {
    return failStartup(service, error);
  }
}

/** Where `listenOn` listens, and the variable a person sets to move it. */
export interface ListenOptions {
  readonly host: string;
  readonly port: number;
  /** The environment variable that sets the port, named when the port is taken. */
  readonly portVariable: string;
}

/** Listens; a taken or forbidden port rejects with a message naming it and its variable. Resolves to the bound port. */
export async function listenOn(server: Server, options: ListenOptions): Promise<number> {
  const { host, port, portVariable } = options;
  server.listen(port, host);
  const [outcome] = (await Promise.race([once(server, 'listening').then(() => ['listening']), once(server, 'error')])) as [unknown];
  if (outcome !== 'listening') {
    const code = (outcome as NodeJS.ErrnoException).code;
    const why =
      code === 'EADDRINUSE' ? 'is already in use' : code === 'EACCES' ? 'may not be used by this user' : `cannot be listened on (${code ?? 'unknown error'})`;
    throw new Error(`port ${port} on ${host} ${why}; set ${portVariable} to another port`, { cause: outcome });
  }
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : port;
}

/** Stops accepting connections, ends idle keep-alive ones, and resolves when the last request is done. */
export async function closeServer(server: Server): Promise<void> {
  if (!server.listening) return;
  const closed = once(server, 'close');
  server.close();
  server.closeIdleConnections();
  await closed;
}

/** What `stopOnSignals` runs on SIGINT or SIGTERM, in order, under a deadline. */
export interface StopOptions {
  /** Where the signal, each failing step and the exit are logged. */
  readonly logger: Logger;
  /** Run in order on SIGINT or SIGTERM; a failing step is logged and the next one still runs. */
  readonly steps: readonly (() => Promise<void> | void)[];
  /** After this, the process exits anyway. Default 5 000. */
  readonly deadlineMs?: number;
}

/** Stops the service cleanly on SIGINT, SIGTERM or the loss of its parent's IPC channel; a second signal, or the deadline, ends it at once. */
export function stopOnSignals(options: StopOptions): void {
  const { logger, steps, deadlineMs = 5_000 } = options;
  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info('shutting down');
    setTimeout(() => {
      logger.warn({ deadlineMs }, 'did not stop in time; exiting');
      process.exit(1);
    }, deadlineMs).unref();
    for (const step of steps) {
      try {
        await step();
      } catch (error) {
        logger.error({ err: error }, 'a shutdown step failed');
      }
    }
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop());
  stopsInOrder = true;
  if (process.channel) {
    process.once('disconnect', () => {
      if (!stopping) void stop();
    });
  }
}

let stopsInOrder = false;

/**
 * For a process started with an IPC channel (npm start's runner starts each service so): ends it
 * when the channel closes, that is when whoever started it is gone, rather than let it live on
 * unowned, holding its ports. Call it first in main.ts; once stopOnSignals is in place, the channel
 * closing stops the service in order as a signal does.
 */
export function endWithParent(): void {
  if (!process.channel) return;
  process.channel.unref();
  if (!process.connected) process.exit(1);
  process.once('disconnect', () => {
    if (!stopsInOrder) process.exit(1);
  });
}
