// Calls between the delivery benchmark and its child processes over Node's IPC channel: a child
// serves named handlers, the parent calls them and awaits the answer; the child says it is ready
// with a first message of its own.
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';

/** The calls a child answers: each takes one JSON argument and resolves to a JSON answer. */
export type Handlers = Record<string, (argument: never) => Promise<unknown>>;

interface Call {
  readonly id: number;
  readonly name: string;
  readonly argument: unknown;
}

interface Answer {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: string;
}

/** In the child: answers the parent's calls with `handlers`, after telling it `ready`. */
export function serveCalls(handlers: Handlers, ready: unknown): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('this process was not started with an IPC channel');
  process.on('message', (message: Call) => {
    const handler = handlers[message.name] as ((argument: unknown) => Promise<unknown>) | undefined;
    const answered = handler ? handler(message.argument) : Promise.reject(new Error(`no call named ${message.name}`));
    answered.then(
      (result) => send({ id: message.id, result } satisfies Answer),
      (error: unknown) => send({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies Answer),
    );
  });
  // The parent going away ends the child.
  process.on('disconnect', () => process.exit(0));
  send({ id: 0, result: ready } satisfies Answer);
}

export interface Caller<H extends Handlers> {
  /** What the child said when it was ready. */
  readonly ready: unknown;
  call<K extends keyof H & string>(name: K, ...argument: Parameters<H[K]>): Promise<Awaited<ReturnType<H[K]>>>;
}

/** In the parent: waits for the child's ready message, then calls it. */
export async function callerOf<H extends Handlers>(child: ChildProcess): Promise<Caller<H>> {
  const waiting = new Map<number, { resolve: (value: never) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  const [first] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`a benchmark process exited (${String(code)}) before it was ready`);
    }),
  ])) as [Answer];
  child.on('message', (answer: Answer) => {
    const waiter = waiting.get(answer.id);
    if (!waiter) return;
    waiting.delete(answer.id);
    if (answer.error === undefined) waiter.resolve(answer.result as never);
    else waiter.reject(new Error(answer.error));
  });
  child.once('exit', (code) => {
    for (const waiter of waiting.values()) waiter.reject(new Error(`a benchmark process exited (${String(code)}) during a call`));
    waiting.clear();
  });
  return {
    ready: first.result,
    call(name, ...argument) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child.send({ id, name, argument: argument[0] } satisfies Call);
      });
    },
  };
}
