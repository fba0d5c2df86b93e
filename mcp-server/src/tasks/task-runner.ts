// The tasks this replica runs. A call the client may run as a task is sent as one (CallToolAsTask);
// when the tool service says it became one, the task is stored (within the open-task bounds) and the
// client answered with it, while the call runs on here. The tool holds a delegated token only while
// the person is there: each poll, at any replica, may leave a fresh token in the task's record,
// which this replica hands the running call; when the token the call holds runs out unrenewed, the
// task is cancelled. The call's end settles the task: its result, its error, or its questions (then
// it waits, at no replica, for the answers, and runs again where they arrive). A replica marks its
// running tasks alive; one that stops leaves them to be failed by whichever replica is asked next.
import { randomBytes } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ClientAbilities } from '@platform/proto';
import type { Caller, Logger, Timers } from '@platform/tool-sdk';
import { systemTimers } from '@platform/tool-sdk/internal';
import { currentTraceparent, inSpan, linkTo } from '@platform/tool-sdk/observability';
import type { DelegatedToken } from '../delegation/index.ts';
import type { ToolCallOutcome, ToolGateway } from '../mcp/tool-gateway.ts';
import type { RemoteTool, ToolCatalog } from '../remote-tools.ts';
import type { SealedBox } from '../sealed-box.ts';
import { failureResult } from '../tool-results/index.ts';
import type { TaskChanges } from './task-changes.ts';
import { limitResult, notPolled, progressMessage, storeUnavailable, textOf } from './task-messages.ts';
import { settledRecord, type SettleContext } from './task-outcomes.ts';
import { openStatuses, type TaskContent, type TaskOwner, type TaskRecord, type TaskStore } from './task-records.ts';

/** Who asks, on this request: the task's owner, the person's own token (what fresh delegated tokens are exchanged from). */
export interface TaskRequester {
  readonly owner: TaskOwner;
  readonly caller: Caller;
  readonly token: string;
  readonly requestId: string;
}

/** A call the client may run as a task. */
export interface TaskStart extends TaskRequester {
  readonly tool: RemoteTool;
  readonly args: Record<string, unknown>;
  readonly client: ClientAbilities;
  readonly declared: Readonly<Record<string, unknown>> | undefined;
  readonly answers: Readonly<Record<string, string>>;
  readonly rounds: number;
  /** The request's: it cancels the call only until the call becomes a task. */
  readonly signal?: AbortSignal;
}

/** The task the call became; or how it ended before it became one (answered as a plain call is); or why no task could be made. */
export type TaskStartOutcome = { readonly task: TaskRecord } | { readonly outcome: ToolCallOutcome } | { readonly refused: CallToolResult };

export interface TaskRunnerOptions {
  readonly store: TaskStore;
  readonly changes: TaskChanges;
  readonly gateway: ToolGateway;
  readonly catalog: () => ToolCatalog;
  /** Seals a fresh delegated token into a task's record, for the replica that runs it. */
  readonly box: SealedBox;
  readonly settings: { readonly maxRunMs: number; readonly keepMs: number; readonly maxPerCaller: number; readonly maxOpen: number };
  /** What a task's questions are vetted by (question-rounds.ts's rules). */
  readonly settle: SettleContext;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly timers?: Timers;
}

/** One task running here: how to stop it, how to hand it a token, until when its token lives. */
interface Running {
  readonly stop: AbortController;
  renew: ((token: string) => void) | undefined;
  tokenExpiresAt: number;
  cancelWatchdog: (() => void) | undefined;
}

/** What a sealed renewal is bound to: this task, this caller, this client. */
export const renewalBinding = (record: Pick<TaskRecord, 'id' | 'owner' | 'tool'>) =>
  `task-token\n${record.id}\n${record.owner.callerId}\n${record.owner.clientId}\n${record.tool}`;

export function createTaskRunner(options: TaskRunnerOptions) {
  const { store, changes, gateway, box, settings, logger, clock } = options;
  const timers = options.timers ?? systemTimers;
  const runnerId = randomBytes(9).toString('base64url');
  const running = new Map<string, Running>();

  const armWatchdog = (id: string, local: Running) => {
    local.cancelWatchdog?.();
    local.cancelWatchdog =
      local.tokenExpiresAt > 0
        ? timers.after(Math.max(0, local.tokenExpiresAt - clock()), () => {
            void expire(id, local);
          })
        : undefined;
  };

  /** The token ran out with nobody polling: the call stops, the task is cancelled. */
  const expire = async (id: string, local: Running) => {
    const record = await changes.change(id, (task) =>
      task.status === 'working' && task.runner === runnerId && task.tokenExpiresAt <= clock()
        ? { ...task, status: 'cancelled', statusMessage: notPolled(task.tokenLifetimeMs), runner: undefined, renewal: undefined }
        : undefined,
    );
    if (record?.status === 'cancelled') local.stop.abort(new Error('the task was not polled while its token lived'));
    else if (record?.status === 'working' && record.tokenExpiresAt > local.tokenExpiresAt) apply(id, local, record);
  };

  /** What another replica (or a poll here) changed: a cancellation stops the call, a fresh token is handed to it. */
  const apply = (id: string, local: Running, record: TaskRecord | undefined) => {
    if (!record || !openStatuses.has(record.status) || record.runner !== runnerId) {
      local.stop.abort(new Error('the task was cancelled'));
      return;
    }
    if (record.renewal === undefined || record.tokenExpiresAt <= local.tokenExpiresAt) return;
    const token = box.open(record.renewal, renewalBinding(record));
    if (token === undefined) {
      logger.warn({ taskId: id }, 'a renewed token of a task did not open; the task keeps the token it has');
      return;
    }
    local.renew?.(token);
    local.tokenExpiresAt = record.tokenExpiresAt;
    armWatchdog(id, local);
  };

  const hear = (id: string) => {
    const local = running.get(id);
    if (!local) return;
    store.get(id).then(
      (record) => {
        apply(id, local, record);
      },
      (error: unknown) => {
        logger.warn({ err: error, taskId: id }, 'a changed task could not be read');
      },
    );
  };

  const newRunning = (): Running => ({ stop: new AbortController(), renew: undefined, tokenExpiresAt: 0, cancelWatchdog: undefined });

  /** Runs the task's call here until it ends; `onStarted` is told when the tool service says it became a task. */
  const run = (start: TaskStart, id: string, local: Running, onStarted: () => void): Promise<ToolCallOutcome> => {
    let lastWrite = 0;
    return gateway.call(start.tool, start.args, {
      caller: start.caller,
      token: start.token,
      requestId: start.requestId,
      client: start.client,
      answers: start.answers,
      signal: local.stop.signal,
      // Progress becomes the task's status message (MCP sends none on a task), at most one write a second.
      onEvent: (event) => {
        if (!('progress' in event) || !running.has(id) || clock() - lastWrite < 1000) return;
        lastWrite = clock();
        const statusMessage = progressMessage(event.progress.progress, event.progress.total, event.progress.message);
        void changes.change(id, (task) => (task.status === 'working' && task.runner === runnerId ? { ...task, statusMessage } : undefined));
      },
      task: {
        deadlineMs: settings.maxRunMs,
        onToken: (token: DelegatedToken) => {
          local.tokenExpiresAt = token.expiresAt;
          if (running.has(id)) armWatchdog(id, local);
        },
        onRenewable: (renew) => {
          local.renew = renew;
        },
        onTaskStarted: onStarted,
      },
    });
  };

  /** Settles a task with what its call ended with, unless it was settled meanwhile (cancelled, say). */
  const finish = async (id: string, outcome: ToolCallOutcome, tool: RemoteTool) => {
    const local = running.get(id);
    local?.cancelWatchdog?.();
    running.delete(id);
    try {
      await changes.change(id, (task) =>
        task.status === 'working' && task.runner === runnerId ? settledRecord(task, outcome, { ...options.settle, tool, now: clock() }) : undefined,
      );
    } catch (error) {
      logger.error({ err: error, taskId: id }, 'a finished task could not be settled');
    }
  };

  return {
    runnerId,
    get running(): number {
      return running.size;
    },

    /** Sends the call as a task; resolves once it became one (stored), or ended before. */
    start(start: TaskStart): Promise<TaskStartOutcome> {
      const now = clock();
      const draft: TaskRecord = {
        id: randomBytes(16).toString('base64url'),
        owner: start.owner,
        tool: start.tool.exposedName,
        status: 'working',
        statusMessage: 'The tool is running.',
        createdAt: now,
        updatedAt: now,
        ttlMs: settings.maxRunMs + settings.keepMs,
        runner: runnerId,
        runnerSeenAt: now,
        tokenExpiresAt: 0,
        tokenLifetimeMs: 0,
        renewal: undefined,
        polledAt: now,
        content: { ...contentOf(start), ...(currentTraceparent() !== undefined && { startedBy: currentTraceparent() }) },
        version: 1,
      };
      return new Promise<TaskStartOutcome>((resolve) => {
        const local = newRunning();
        // The request's end cancels the call until it becomes a task; from then on it runs without it.
        const untilStarted = () => {
          local.stop.abort(start.signal?.reason);
        };
        start.signal?.addEventListener('abort', untilStarted, { once: true });
        let created: Promise<boolean> | undefined;
        const call = run(start, draft.id, local, () => {
          start.signal?.removeEventListener('abort', untilStarted);
          if (created) return;
          const record: TaskRecord = { ...draft, tokenExpiresAt: local.tokenExpiresAt, tokenLifetimeMs: Math.max(0, local.tokenExpiresAt - draft.createdAt) };
          created = store.create(record, { perCaller: settings.maxPerCaller, total: settings.maxOpen }).then(
            (creation) => {
              if (creation !== 'created') {
                local.stop.abort(new Error('too many open tasks'));
                resolve({ refused: limitResult(creation, start.tool, settings) });
                return false;
              }
              running.set(record.id, local);
              armWatchdog(record.id, local);
              resolve({ task: record });
              return true;
            },
            (error: unknown) => {
              logger.warn({ err: error }, 'a task could not be stored');
              local.stop.abort(error);
              resolve({ refused: storeUnavailable(start.tool) });
              return false;
            },
          );
        });
        void call.then(async (outcome) => {
          start.signal?.removeEventListener('abort', untilStarted);
          if (!created) resolve({ outcome });
          else if (await created) await finish(draft.id, outcome, start.tool);
        });
      });
    },

    /** Runs a task again, here, with the answers it waited on (the task is already working, with this replica as its runner). */
    resume(record: TaskRecord, requester: TaskRequester): void {
      const tool = options.catalog().byName(record.tool);
      if (!tool) {
        const withdrawn = failureResult('TOOL_WITHDRAWN', `The tool ${record.tool} is no longer offered; the task cannot go on.`);
        void changes.change(record.id, (task) =>
          task.status === 'working' && task.runner === runnerId
            ? {
                ...task,
                status: 'failed',
                statusMessage: textOf(withdrawn),
                runner: undefined,
                content: { ...task.content, error: { code: -32603, message: textOf(withdrawn) } },
              }
            : undefined,
        );
        return;
      }
      const local = newRunning();
      running.set(record.id, local);
      const { args, client, declared, answers, rounds } = record.content;
      const start: TaskStart = { ...requester, tool, args: { ...args }, client, declared, answers, rounds };
      void inSpan('mcp task run', { links: linkTo(record.content.startedBy) }, () => run(start, record.id, local, () => undefined)).then((outcome) =>
        finish(record.id, outcome, tool),
      );
    },

    /** The tasks running here now. */
    runningIds(): string[] {
      return [...running.keys()];
    },

    /** Stops the task's call here, if it runs here. */
    stop(id: string): void {
      running.get(id)?.stop.abort(new Error('the task was cancelled'));
    },

    hear,

    /** Takes in a task as it is now (a heartbeat's answer): a fresh token, a cancellation. */
    take(record: TaskRecord): void {
      const local = running.get(record.id);
      if (local) apply(record.id, local, record);
    },
  };
}

export type TaskRunner = ReturnType<typeof createTaskRunner>;

const contentOf = ({ args, client, declared, answers, rounds }: TaskStart): TaskContent => ({ args, client, declared, answers, rounds });
