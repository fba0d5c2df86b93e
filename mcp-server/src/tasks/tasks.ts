// MCP tasks at the gateway: started by a call (task-runner.ts), then asked about by their caller at
// any replica. Every request about a task is the caller's own: another person's task, or the same
// person's through another client, is "not found", as is one past its time to live. A poll does
// more than read: it fails a task whose replica stopped, cancels a task left waiting on answers
// longer than a delegated token lives, and, when the token the running tool holds is past half its
// life, exchanges a fresh one from the person's token on the poll and leaves it, sealed, in the
// task's record for the replica that runs it.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Logger, Timers } from '@platform/tool-sdk';
import { systemTimers } from '@platform/tool-sdk/internal';
import type { DelegatedTokenSource } from '../mcp/tool-gateway.ts';
import { answersOf } from '../questions/index.ts';
import type { ToolCatalog } from '../remote-tools.ts';
import type { SealedBox } from '../sealed-box.ts';
import type { TaskChanges } from './task-changes.ts';
import { openStatuses, type TaskRecord, type TaskStore } from './task-records.ts';
import { renewalBinding, type TaskRequester, type TaskRunner, type TaskStart } from './task-runner.ts';

export interface TasksOptions {
  readonly store: TaskStore;
  readonly changes: TaskChanges;
  readonly runner: TaskRunner;
  readonly catalog: () => ToolCatalog;
  readonly delegatedTokens: DelegatedTokenSource;
  readonly box: SealedBox;
  /** How often this replica marks its tasks alive and purges expired ones. */
  readonly heartbeatMs: number;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly timers?: Timers;
}

/** The part of its lifetime a running task's token may have left before a poll renews it. */
const renewBelowLifeLeft = 0.5;
/** A runner silent for this many heartbeats has stopped. */
const heartbeatsMissed = 3;

const notFound = () => new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');

const replicaStopped = 'Failed: the gateway replica that ran the task stopped before the tool finished. Nothing more will happen; call the tool again.';

const unanswered = (lifetimeMs: number) =>
  `Cancelled: nobody answered or asked about the task for ${Math.round(lifetimeMs / 1000)} s, the life of a delegated token. ` +
  'A task waits only while its person is there; call the tool again.';

export function createTasks(options: TasksOptions) {
  const { store, changes, runner, box, logger, clock, heartbeatMs } = options;
  const timers = options.timers ?? systemTimers;
  const owns = (task: TaskRecord, requester: TaskRequester) =>
    task.owner.callerId === requester.owner.callerId && task.owner.clientId === requester.owner.clientId;

  /** The caller's task as it is now, after what a poll of it does. */
  const read = async (id: string, requester: TaskRequester): Promise<TaskRecord> => {
    const task = await store.get(id);
    if (!task || !owns(task, requester)) throw notFound();
    const now = clock();
    let next: TaskRecord | undefined = task;
    if (task.status === 'working' && task.runner !== runner.runnerId && now - task.runnerSeenAt > heartbeatsMissed * heartbeatMs) {
      next = await changes.change(id, (current) =>
        current.status === 'working' && current.runner === task.runner && now - current.runnerSeenAt > heartbeatsMissed * heartbeatMs
          ? {
              ...current,
              status: 'failed',
              statusMessage: replicaStopped,
              runner: undefined,
              renewal: undefined,
              content: { ...current.content, error: { code: -32603, message: replicaStopped } },
            }
          : undefined,
      );
    } else if (task.status === 'input_required' && task.tokenLifetimeMs > 0 && now - task.polledAt > task.tokenLifetimeMs) {
      next = await changes.change(id, (current) =>
        current.status === 'input_required' ? { ...current, status: 'cancelled', statusMessage: unanswered(current.tokenLifetimeMs) } : undefined,
      );
    } else if (openStatuses.has(task.status) && now - task.polledAt > task.tokenLifetimeMs / 4) {
      next = await changes.change(id, (current) => (openStatuses.has(current.status) ? { ...current, polledAt: now } : undefined));
    }
    if (next?.status === 'working' && next.tokenExpiresAt > 0 && next.tokenExpiresAt - now < next.tokenLifetimeMs * renewBelowLifeLeft) {
      next = (await renew(next, requester)) ?? next;
    }
    if (!next) throw notFound();
    return next;
  };

  /** A fresh delegated token from the person's token on this poll, left for the task's runner. */
  const renew = async (task: TaskRecord, requester: TaskRequester): Promise<TaskRecord | undefined> => {
    const tool = options.catalog().byName(task.tool);
    if (!tool) return undefined;
    let fresh;
    try {
      fresh = await options.delegatedTokens.lease(requester.token, tool.service, 1 - renewBelowLifeLeft / 2);
    } catch (error) {
      logger.info({ err: error, taskId: task.id }, 'a task’s token could not be renewed on this poll; the next poll tries again');
      return undefined;
    }
    if (fresh.expiresAt <= task.tokenExpiresAt) return undefined;
    return changes.change(task.id, (current) =>
      current.status === 'working' && current.tokenExpiresAt < fresh.expiresAt
        ? {
            ...current,
            renewal: box.seal(fresh.value, renewalBinding(current)),
            tokenExpiresAt: fresh.expiresAt,
            tokenLifetimeMs: Math.max(current.tokenLifetimeMs, fresh.expiresAt - clock()),
          }
        : undefined,
    );
  };

  const listening = store.listen((id) => {
    runner.hear(id);
  });
  // Without notifications, the heartbeat still takes every change in, a beat later.
  listening.catch((error: unknown) => {
    logger.warn({ err: error }, 'changes of tasks made at other replicas cannot be heard at once; they are taken in at each heartbeat');
  });
  // This replica's tasks marked alive (and any change a notification missed taken in), the expired purged.
  let beating = true;
  const beat = async () => {
    const ids = runner.runningIds();
    if (ids.length > 0) {
      const alive = await store.heartbeat(runner.runnerId, ids);
      for (const task of alive) runner.take(task);
      // Not ours any more (cancelled, or failed as if this replica had stopped), or gone.
      const ours = new Set(alive.map((task) => task.id));
      for (const id of ids) if (!ours.has(id)) runner.hear(id);
    }
    await store.purge(clock());
  };
  const loop = () => {
    if (!beating) return;
    cancelBeat = timers.after(heartbeatMs, () => {
      beat().then(loop, (error: unknown) => {
        logger.warn({ err: error }, 'the tasks of this replica could not be marked alive; trying again');
        loop();
      });
    });
  };
  let cancelBeat: (() => void) | undefined;
  loop();

  return {
    start: (start: TaskStart) => runner.start(start),

    /** tasks/get: the caller's task, renewed or settled by the poll as needed. */
    get: read,

    /** tasks/update: answers to the questions the task waits on; once all are answered, the tool runs again, here. */
    async update(id: string, requester: TaskRequester, responses: Readonly<Record<string, unknown>>): Promise<void> {
      const task = await read(id, requester);
      if (task.status !== 'input_required') return;
      const now = clock();
      // Set by the attempt that wrote the task's return to work: only that request runs the tool again.
      const attempt = { resumed: false };
      const next = await changes.change(id, (current) => {
        attempt.resumed = false;
        if (current.status !== 'input_required' || !owns(current, requester)) return undefined;
        const asked = current.content.asked ?? {};
        // Only answers to questions waiting count; any other key is ignored (answered already, never asked).
        const waiting = Object.fromEntries(Object.entries(responses).filter(([key]) => Object.hasOwn(asked, key)));
        const answers = answersOf(current.content.answers, asked, waiting);
        const open = Object.keys(asked).filter((key) => !Object.hasOwn(answers, key));
        if (open.length === Object.keys(asked).length) return undefined;
        if (open.length > 0) {
          const inputRequests = Object.fromEntries(Object.entries(current.content.inputRequests ?? {}).filter(([key]) => open.includes(key)));
          const stillAsked = Object.fromEntries(Object.entries(asked).filter(([key]) => open.includes(key)));
          return { ...current, polledAt: now, content: { ...current.content, answers, inputRequests, asked: stillAsked } };
        }
        const { inputRequests: _asked, asked: _kinds, ...content } = current.content;
        attempt.resumed = true;
        return {
          ...current,
          status: 'working',
          statusMessage: 'Working again, with your answers.',
          runner: runner.runnerId,
          runnerSeenAt: now,
          polledAt: now,
          content: { ...content, answers },
        };
      });
      if (attempt.resumed && next?.status === 'working') runner.resume(next, requester);
    },

    /** tasks/cancel: a task not over is cancelled, and its call (at whichever replica) stopped. */
    async cancel(id: string, requester: TaskRequester): Promise<void> {
      await read(id, requester);
      const next = await changes.change(id, (current) =>
        openStatuses.has(current.status) && owns(current, requester)
          ? { ...current, status: 'cancelled', statusMessage: 'Cancelled at your request.', runner: undefined, renewal: undefined }
          : undefined,
      );
      if (next?.status === 'cancelled') runner.stop(id);
    },

    get running(): number {
      return runner.running;
    },

    /** Stops marking tasks alive; tasks still running here are left to fail at the next poll elsewhere. */
    async close(): Promise<void> {
      beating = false;
      cancelBeat?.();
      await (
        await listening.catch(() => () => Promise.resolve())
      )();
    },
  };
}

export type Tasks = ReturnType<typeof createTasks>;
