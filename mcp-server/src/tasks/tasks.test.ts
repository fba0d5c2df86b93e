// The caller's side of tasks on the memory store, with a runner that runs nothing: a task is its
// owner's (person and client) alone; a task left waiting on answers longer than a token lives is
// cancelled at the next poll; partial answers keep it waiting; the open-task bounds; compare-and-set.
import { createLogger } from '@platform/tool-sdk';
import { manualClock } from '@platform/tool-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createSealedBox } from '../sealed-box.ts';
import { createMemoryTaskStore } from './memory-task-store.ts';
import { createTaskChanges } from './task-changes.ts';
import { clientIdOf } from './task-methods.ts';
import type { TaskRecord } from './task-records.ts';
import type { TaskRequester, TaskRunner } from './task-runner.ts';
import { createTasks } from './tasks.ts';

const clock = manualClock(Date.UTC(2026, 10, 28));
const logger = createLogger({ name: 'tasks-test', level: 'silent' });
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const one of opened.splice(0)) await one.close();
});

function setUp() {
  const store = createMemoryTaskStore(clock);
  const changes = createTaskChanges(store, clock, logger, () => undefined);
  const resumed: string[] = [];
  const runner = {
    runnerId: 'here',
    running: 0,
    runningIds: () => [],
    hear: () => undefined,
    take: () => undefined,
    stop: () => undefined,
    start: () => Promise.reject(new Error('not in this test')),
    resume: (record: TaskRecord) => {
      resumed.push(record.id);
    },
  } as unknown as TaskRunner;
  const tasks = createTasks({
    store,
    changes,
    runner,
    catalog: () => ({ version: 1, tools: [], byName: () => undefined }),
    delegatedTokens: { get: () => Promise.reject(new Error('none')), lease: () => Promise.reject(new Error('none')), forget: () => undefined },
    box: createSealedBox('secret', 'task tokens'),
    heartbeatMs: 60_000,
    logger,
    clock: clock,
    timers: clock,
  });
  opened.push(tasks, store);
  return { store, tasks, resumed };
}

const requester = (callerId: string, clientId: string): TaskRequester =>
  ({ owner: { callerId, clientId }, caller: { id: callerId }, token: 'person-token', requestId: 'r1' }) as unknown as TaskRequester;

function waiting(id: string, keys: readonly string[]): TaskRecord {
  const now = clock();
  return {
    id,
    owner: { callerId: 'u-oscar', clientId: 'desktop' },
    tool: 'confirm_job',
    status: 'input_required',
    statusMessage: 'Waiting for your answer.',
    createdAt: now,
    updatedAt: now,
    ttlMs: 3_600_000,
    runner: undefined,
    runnerSeenAt: now,
    tokenExpiresAt: now + 300_000,
    tokenLifetimeMs: 300_000,
    renewal: undefined,
    polledAt: now,
    content: {
      args: {},
      client: {},
      declared: undefined,
      answers: {},
      rounds: 1,
      inputRequests: Object.fromEntries(
        keys.map((key) => [key, { method: 'elicitation/create', params: { message: key, requestedSchema: { type: 'object', properties: {} } } }]),
      ) as never,
      asked: Object.fromEntries(keys.map((key) => [key, 'elicitation/create'])),
    },
    version: 1,
  };
}

const limits = { perCaller: 2, total: 3 };

describe('tasks, as their caller asks about them', () => {
  it('belong to the person and the client that started them: the same person through another client finds nothing', async () => {
    const { store, tasks } = setUp();
    await store.create(waiting('t1', ['sure']), limits);
    await expect(tasks.get('t1', requester('u-oscar', 'desktop'))).resolves.toMatchObject({ id: 't1' });
    for (const other of [requester('u-oscar', 'another-client'), requester('u-olivia', 'desktop')]) {
      await expect(tasks.get('t1', other)).rejects.toMatchObject({ code: -32602 });
      await expect(tasks.cancel('t1', other)).rejects.toMatchObject({ code: -32602 });
      await expect(tasks.update('t1', other, { sure: { action: 'accept', content: {} } })).rejects.toMatchObject({ code: -32602 });
    }
    expect((await store.get('t1'))?.status).toBe('input_required');
  });

  it('keep waiting on a partial answer, with only the unanswered question left, and run again, once, when all are answered', async () => {
    const { store, tasks, resumed } = setUp();
    await store.create(waiting('t2', ['name', 'sure']), limits);
    const owner = requester('u-oscar', 'desktop');
    await tasks.update('t2', owner, { name: { action: 'accept', content: { name: 'Alice' } }, unknown: { action: 'accept' } });
    const partly = await tasks.get('t2', owner);
    expect(partly.status).toBe('input_required');
    expect(Object.keys(partly.content.inputRequests ?? {})).toEqual(['sure']);
    await Promise.all([tasks.update('t2', owner, { sure: { action: 'accept', content: {} } }), tasks.update('t2', owner, { sure: { action: 'decline' } })]);
    expect(await store.get('t2')).toMatchObject({ status: 'working', runner: 'here' });
    expect(resumed).toEqual(['t2']);
  });

  it('are cancelled at the next poll once left waiting longer than a delegated token lives', async () => {
    const { store, tasks } = setUp();
    await store.create(waiting('t3', ['sure']), limits);
    clock.advance(300_001);
    const after = await tasks.get('t3', requester('u-oscar', 'desktop'));
    expect(after).toMatchObject({ status: 'cancelled' });
    expect(after.statusMessage).toMatch(/^Cancelled: nobody answered or asked about the task for 300 s/);
  });
});

describe('the memory store of tasks', () => {
  it('bounds the open tasks per person and in all, counts no finished or expired task, and sets by version only', async () => {
    const store = createMemoryTaskStore(clock);
    opened.push(store);
    const task = (id: string, callerId: string): TaskRecord => ({ ...waiting(id, ['sure']), owner: { callerId, clientId: 'desktop' } });
    expect(await store.create(task('a1', 'u-a'), limits)).toBe('created');
    expect(await store.create(task('a2', 'u-a'), limits)).toBe('created');
    expect(await store.create(task('a3', 'u-a'), limits)).toBe('caller-limit');
    expect(await store.create(task('b1', 'u-b'), limits)).toBe('created');
    expect(await store.create(task('c1', 'u-c'), limits)).toBe('total-limit');
    const first = await store.get('a1');
    if (!first) throw new Error('a1 is gone');
    expect(await store.replace({ ...first, status: 'completed', version: 2 }, 1)).toBe(true);
    expect(await store.replace({ ...first, status: 'cancelled', version: 2 }, 1)).toBe(false);
    expect(await store.create(task('a3', 'u-a'), limits)).toBe('created');
    clock.advance(3_600_001);
    expect(await store.get('a2')).toBeUndefined();
    expect(await store.create(task('c1', 'u-c'), limits)).toBe('created');
    // Past their time to live: all but the one made after the clock moved.
    expect(await store.purge(clock())).toBe(4);
    expect(await store.get('c1')).toBeDefined();
  });
});

describe('the client of a person’s token', () => {
  it('is its client_id claim, and nothing for a token that is no JWT or has none', () => {
    const jwt = (claims: object) => `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.signature`;
    expect(clientIdOf(jwt({ sub: 'u-oscar', client_id: 'desktop' }))).toBe('desktop');
    expect(clientIdOf(jwt({ sub: 'u-oscar' }))).toBe('');
    expect(clientIdOf('opaque-token')).toBe('');
    expect(clientIdOf('a.%%%.c')).toBe('');
  });
});
