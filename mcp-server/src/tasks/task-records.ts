// What the gateway keeps of an MCP task (the tasks extension, io.modelcontextprotocol/tasks), and
// the store it is kept in: this process's memory for one gateway, PostgreSQL for replicas. A task
// is one record, changed by compare-and-set on its version, so the replicas (the one running the
// tool, the ones answering the person's polls) never overwrite each other; a change is announced,
// so the replica running the task hears of a cancellation or a fresh token at once.
import type { CallToolResult, InputRequests } from '@modelcontextprotocol/server';
import type { ClientAbilities } from '@platform/proto';
import type { InputMethod } from '../questions/request-state.ts';

/** The extension's identifier, in capabilities and in the error that names it. */
export const tasksExtension = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The statuses of a task that is not over. */
export const openStatuses: ReadonlySet<TaskStatus> = new Set(['working', 'input_required']);

/** Whose task it is: the person, through the client (OAuth client id) that started it. */
export interface TaskOwner {
  readonly callerId: string;
  readonly clientId: string;
}

/** What only the task's caller may see or change; sealed at rest in PostgreSQL. */
export interface TaskContent {
  readonly args: Readonly<Record<string, unknown>>;
  /** What the tool is told the client can take. */
  readonly client: ClientAbilities;
  /** The capabilities the client declared on the request that started the task: which questions it can answer. */
  readonly declared: Readonly<Record<string, unknown>> | undefined;
  /** The answers to the tool's questions so far, by key, each the client's response as JSON. */
  readonly answers: Readonly<Record<string, string>>;
  /** Rounds of questions so far. */
  readonly rounds: number;
  /** While input_required: the questions waiting, as MCP embeds them, and what each is. */
  readonly inputRequests?: InputRequests;
  readonly asked?: Readonly<Record<string, InputMethod>>;
  /** When completed: the tool's result. */
  readonly result?: CallToolResult;
  /** When failed: the JSON-RPC error. */
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
  /** The trace context of the request that started the task (W3C traceparent): its runs' spans link to it. */
  readonly startedBy?: string;
}

export interface TaskRecord {
  /** Unguessable: 128 random bits. */
  readonly id: string;
  readonly owner: TaskOwner;
  /** The tool's exposed name. */
  readonly tool: string;
  readonly status: TaskStatus;
  readonly statusMessage: string | undefined;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly updatedAt: number;
  /** From createdAt; the task is gone after it. */
  readonly ttlMs: number;
  /** The replica running the tool, while working. */
  readonly runner: string | undefined;
  /** When the runner last said it was alive (epoch ms); kept apart from the version. */
  readonly runnerSeenAt: number;
  /** When the delegated token the tool holds expires (epoch ms; 0: none), and how long such a token lives. */
  readonly tokenExpiresAt: number;
  readonly tokenLifetimeMs: number;
  /** A fresh delegated token for the runner to hand the tool, sealed to this task. */
  readonly renewal: string | undefined;
  /** When the caller last asked about the task (epoch ms), written at most a few times a token lifetime. */
  readonly polledAt: number;
  readonly content: TaskContent;
  /** Grows by one with every change. */
  readonly version: number;
}

/** Open tasks at most: one person's, and everyone's. */
export interface TaskLimits {
  readonly perCaller: number;
  readonly total: number;
}

export type TaskCreation = 'created' | 'caller-limit' | 'total-limit';

export interface TaskStore {
  /** Adds a task unless its caller, or everyone, already has the most open tasks allowed. */
  create(record: TaskRecord, limits: TaskLimits): Promise<TaskCreation>;
  /** The task, whoever's it is (the caller is checked by whoever asks); undefined when unknown or purged. */
  get(id: string): Promise<TaskRecord | undefined>;
  /** Writes `next` if the task is still at `version` (next.version is version + 1) and announces it; false when it changed meanwhile. */
  replace(next: TaskRecord, version: number): Promise<boolean>;
  /** Marks `runner` alive for its running tasks `ids`, and returns them as they are now. */
  heartbeat(runner: string, ids: readonly string[]): Promise<TaskRecord[]>;
  /** Deletes the tasks whose time to live ended before `now`; how many. */
  purge(now: number): Promise<number>;
  /** Calls `listener` with the id of each task changed (at any replica) until the returned function is called. */
  listen(listener: (id: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
