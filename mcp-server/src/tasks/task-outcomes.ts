// What a task becomes when its call ends, and how a task is shown to its caller. A call that ended
// with a result completes the task, an `isError` one too (a tool's failure is a result); one whose
// tool service produced no result (it failed, refused the call, could not be reached) fails it with
// a JSON-RPC error; one that ended with questions leaves it waiting on them, vetted by the rules of
// a plain call's questions. A finished task is kept for its caller to read, then purged.
import { MissingRequiredClientCapabilityError, type CallToolResult } from '@modelcontextprotocol/server';
import type { ToolCallOutcome } from '../mcp/tool-gateway.ts';
import { vetQuestions, type QuestionPolicy } from '../questions/index.ts';
import type { RemoteTool } from '../remote-tools.ts';
import { textOf } from './task-messages.ts';
import type { TaskRecord } from './task-records.ts';

/** JSON-RPC's internal error: the code of a task whose tool produced no result. */
const internalError = -32603;

export interface SettleContext {
  readonly policy: QuestionPolicy;
  readonly maxRounds: number;
  /** How long a finished task is kept. */
  readonly keepMs: number;
}

type Settled = Omit<TaskRecord, 'version' | 'updatedAt'>;

/** The task after its call ended with `outcome`. */
export function settledRecord(
  task: TaskRecord,
  outcome: ToolCallOutcome,
  context: SettleContext & { readonly tool: RemoteTool; readonly now: number },
): Settled {
  const over = { runner: undefined, renewal: undefined, ttlMs: context.now - task.createdAt + context.keepMs };
  const completed = (result: CallToolResult): Settled => ({
    ...task,
    ...over,
    status: 'completed',
    statusMessage: undefined,
    content: { ...task.content, result },
  });
  const failed = (error: { code: number; message: string; data?: unknown }): Settled => ({
    ...task,
    ...over,
    status: 'failed',
    statusMessage: error.message,
    content: { ...task.content, error },
  });
  if ('result' in outcome) return outcome.failed ? failed({ code: internalError, message: textOf(outcome.result) }) : completed(outcome.result);
  let vetted;
  try {
    vetted = vetQuestions(outcome.inputRequired, {
      round: { round: task.content.rounds, answers: task.content.answers },
      tool: context.tool,
      declared: task.content.declared,
      era: 'modern',
      policy: context.policy,
      maxRounds: context.maxRounds,
    });
  } catch (error) {
    if (!(error instanceof MissingRequiredClientCapabilityError)) throw error;
    return failed({ code: error.code, message: error.message, data: error.data });
  }
  if ('content' in vetted) return completed(vetted);
  return {
    ...task,
    runner: undefined,
    renewal: undefined,
    status: 'input_required',
    statusMessage: `Waiting for your answer: ${vetted.asked.described.join(' and ')}.`,
    polledAt: context.now,
    content: {
      ...task.content,
      answers: vetted.answers,
      rounds: task.content.rounds + 1,
      inputRequests: vetted.asked.inputRequests,
      asked: vetted.asked.asked,
    },
  };
}

/** The task as `tasks/get` answers it (MCP's DetailedTask): what its status carries, nothing else. */
export function detailedTask(task: TaskRecord, pollIntervalMs: number): Record<string, unknown> {
  return {
    ...taskFields(task, pollIntervalMs),
    ...(task.status === 'input_required' && { inputRequests: task.content.inputRequests ?? {} }),
    ...(task.status === 'completed' && { result: task.content.result }),
    ...(task.status === 'failed' && { error: task.content.error }),
  };
}

/** The answer to the call that started the task (MCP's CreateTaskResult: the task's fields, flat). */
export function createTaskResult(task: TaskRecord, pollIntervalMs: number): Record<string, unknown> {
  return { resultType: 'task', ...taskFields(task, pollIntervalMs) };
}

function taskFields(task: TaskRecord, pollIntervalMs: number) {
  return {
    taskId: task.id,
    status: task.status,
    ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.updatedAt).toISOString(),
    ttlMs: Math.round(task.ttlMs),
    pollIntervalMs,
  };
}
