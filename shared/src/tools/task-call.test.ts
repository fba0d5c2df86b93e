// CallToolAsTask on a real loopback server, against a stand-in platform that answers GET /api/me for
// staged tokens and records the bearer of every other request: the call runs as CallToolStream's
// does, a renewed token is taken only when valid for the same person (and then sent on the tool's
// platform requests), a cancel aborts the tool while the gateway's half-close does not.
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { loadToolsProto, type CallToolEvent__Output, type TaskCallInput } from '@platform/proto';
import { captureLogs, listen, toolClient, type Listening, type StagedCaller } from '@platform/tool-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../service/logger.ts';
import type { PlatformMcpCallContext } from './call-context.ts';
import { createToolApp, type ServingToolApp } from './tool-app.ts';
import { defineTool } from './tool-definition.ts';
import { appClientId, identity, settingsFor } from '../../test/tool-app-parts.ts';

const token = 'task-token-first';

/** The platform: GET /api/me answers staged tokens (else 401), any other GET records its Authorization and answers {}. */
async function startPlatform() {
  const callers = new Map<string, StagedCaller | { status: number }>();
  const bearers: string[] = [];
  const server: Listening = await listen((req: IncomingMessage, res: ServerResponse) => {
    const authorization = req.headers.authorization ?? '';
    if (req.url !== '/api/me') {
      bearers.push(authorization);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    const answer = callers.get(authorization.replace(/^Bearer /, ''));
    if (!answer) res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
    else if ('status' in answer) res.writeHead(answer.status).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  const person = (id: string): StagedCaller => ({ id, audience: [server.url], actor: { clientId: appClientId }, companies: [] });
  return {
    url: server.url,
    bearers,
    stage: (staged: string, answer: StagedCaller | { status: number }) => callers.set(staged, answer),
    person,
    close: () => server.close(),
  };
}

let platform: Awaited<ReturnType<typeof startPlatform>>;
let serving: ServingToolApp;
let logs: ReturnType<typeof captureLogs>;
let seen: PlatformMcpCallContext | undefined;
const gate: { release?: () => void } = {};

const tools = [
  defineTool({
    name: 'long_task',
    title: 'Long task',
    description: 'Reports progress, calls the platform, waits for the test, calls the platform again.',
    inputSchema: z.strictObject({}),
    execution: { taskSupport: 'optional' },
    handler: async (_args, ctx) => {
      seen = ctx;
      // Made before any renewal: the client must still send the token the call holds at each request.
      const api = ctx.platform;
      await api.get('/api/devices');
      ctx.progress(1, 2, 'first half');
      await new Promise<void>((resolve, reject) => {
        gate.release = resolve;
        ctx.signal.addEventListener('abort', () => {
          reject(ctx.signal.reason as Error);
        });
      });
      await api.get('/api/devices');
      return { done: true };
    },
  }),
  defineTool({
    name: 'asks',
    title: 'Asks',
    description: 'Asks one question.',
    inputSchema: z.strictObject({}),
    execution: { taskSupport: 'required' },
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Sure?', requestedSchema: z.object({ confirm: z.boolean() }) }, { key: 'sure' });
      return { confirmed: answer.action === 'accept' && answer.content.confirm };
    },
  }),
  defineTool({
    name: 'asks_first',
    title: 'Asks first',
    description: 'Asks one question in the call itself, then starts its task and reports progress.',
    inputSchema: z.strictObject({}),
    execution: { taskSupport: 'required', taskStart: 'explicit' },
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Sure?', requestedSchema: z.object({ confirm: z.boolean() }) }, { key: 'sure' });
      ctx.startTask();
      ctx.startTask();
      ctx.progress(1, 1, 'working');
      return { confirmed: answer.action === 'accept' && answer.content.confirm };
    },
  }),
];

beforeEach(async () => {
  platform = await startPlatform();
  platform.stage(token, platform.person('u-oscar'));
  logs = captureLogs();
  const app = createToolApp({
    settings: settingsFor(platform.url),
    identity: identity(),
    logger: createLogger({ name: 'task-test', level: 'debug', destination: logs.destination }),
  });
  app.registerTools(tools);
  serving = await app.serve({ register: false });
});
afterEach(async () => {
  gate.release?.();
  gate.release = undefined;
  seen = undefined;
  await serving.close(100);
  await platform.close();
});

type Final = { ok: true; event: CallToolEvent__Output } | { ok: false; code: grpc.status; details: string };

/** A CallToolAsTask stream, as the gateway opens it: its events so far and how it ended. */
function openTask(bearer = token) {
  const client = new (loadToolsProto().ToolService)(serving.address, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${bearer}`);
  const stream = client.CallToolAsTask(metadata);
  const events: CallToolEvent__Output[] = [];
  let final: CallToolEvent__Output | undefined;
  const ended = new Promise<Final>((resolve) => {
    stream.on('data', (event: CallToolEvent__Output) => {
      if (event.result || event.inputRequired) final = event;
      else events.push(event);
    });
    stream.on('error', (error: grpc.ServiceError) => {
      resolve({ ok: false, code: error.code, details: error.details });
    });
    stream.on('end', () => {
      resolve(final ? { ok: true, event: final } : { ok: false, code: grpc.status.UNKNOWN, details: 'no final event' });
    });
  });
  const send = (input: TaskCallInput) => {
    stream.write(input);
  };
  const call = (name: string) => {
    send({ call: { name, argumentsJson: '{}', requestId: 'task-req-1', client: { progress: true, elicitationForm: true } } });
  };
  return {
    stream,
    events,
    ended: ended.finally(() => {
      client.close();
    }),
    send,
    call,
    renew: (fresh: string) => {
      send({ renewal: { delegatedToken: fresh } });
    },
  };
}

describe('a call run as a task', () => {
  it('answers like CallToolStream: its progress, then its result', async () => {
    const task = openTask();
    task.call('long_task');
    await expect.poll(() => gate.release).toBeDefined();
    gate.release?.();
    const ended = await task.ended;
    expect(ended.ok && JSON.parse(ended.event.result?.structuredContentJson ?? '')).toEqual({ done: true });
    // The task starts as the handler does: task_started comes first, then the handler's progress.
    expect(task.events.map((event) => event.event)).toEqual(['taskStarted', 'progress']);
    expect(task.events[1]?.progress?.message).toBe('first half');
  });

  it('ends with its questions inside the task, and with a refusal status (never a task) for a refused token or an unknown tool', async () => {
    const asks = openTask();
    asks.call('asks');
    const ended = await asks.ended;
    expect(ended.ok && Object.keys(ended.event.inputRequired?.requests ?? {})).toEqual(['sure']);
    expect(asks.events.map((event) => event.event)).toEqual(['taskStarted']);
    // The same call through CallToolStream is no task: no task_started.
    const plain = toolClient(serving.address);
    expect(await plain.call('asks', {}, token, { client: { elicitationForm: true } })).toMatchObject({ ok: true, events: [] });
    plain.close();
    const refused = openTask('not-staged');
    refused.call('long_task');
    expect(await refused.ended).toMatchObject({ ok: false, code: grpc.status.UNAUTHENTICATED });
    // Refused before its handler started: never a task.
    expect(refused.events).toEqual([]);
    const unknown = openTask();
    unknown.call('no_such_tool');
    expect(await unknown.ended).toMatchObject({ ok: false, code: grpc.status.NOT_FOUND });
  });

  it('starts where the handler says, for a tool that starts its task itself: questions before are the call’s own', async () => {
    const first = openTask();
    first.call('asks_first');
    const asked = await first.ended;
    expect(asked.ok && Object.keys(asked.event.inputRequired?.requests ?? {})).toEqual(['sure']);
    // Asked before ctx.startTask(): the call ended with its question and never became a task.
    expect(first.events).toEqual([]);
    const answered = openTask();
    answered.send({
      call: {
        name: 'asks_first',
        argumentsJson: '{}',
        requestId: 'task-req-2',
        client: { progress: true, elicitationForm: true },
        inputResponsesJson: { sure: JSON.stringify({ action: 'accept', content: { confirm: true } }) },
      },
    });
    const done = await answered.ended;
    expect(done.ok && JSON.parse(done.event.result?.structuredContentJson ?? '')).toEqual({ confirmed: true });
    // Once, though the handler said so twice, and before what the handler reported after it.
    expect(answered.events.map((event) => event.event)).toEqual(['taskStarted', 'progress']);
  });

  it('takes a renewed token for the same person: ctx.authToken and the platform client send it from then on', async () => {
    platform.stage('task-token-second', platform.person('u-oscar'));
    const task = openTask();
    task.call('long_task');
    await expect.poll(() => gate.release).toBeDefined();
    expect(seen?.authToken).toBe(token);
    task.renew('task-token-second');
    await expect.poll(() => seen?.authToken).toBe('task-token-second');
    gate.release?.();
    expect((await task.ended).ok).toBe(true);
    expect(platform.bearers).toEqual([`Bearer ${token}`, 'Bearer task-token-second']);
    expect(JSON.stringify(seen)).not.toContain('task-token-second');
  });

  it.each([
    ['names another person', 'token-of-ada', (p: typeof platform) => p.stage('token-of-ada', p.person('u-ada')), 'another person'],
    ['is refused by the platform', 'token-refused', () => undefined, 'refused'],
    ['cannot be checked (the platform fails)', 'token-unverifiable', (p: typeof platform) => p.stage('token-unverifiable', { status: 503 }), 'could not check'],
  ])('drops a renewed token that %s: the call goes on with its token, and the warning never holds it', async (_case, fresh, stage, reason) => {
    stage(platform);
    const task = openTask();
    task.call('long_task');
    await expect.poll(() => gate.release).toBeDefined();
    task.renew(fresh);
    await expect.poll(() => logs.lines.find((line) => line.includes('"level":40') && line.includes('renewed delegated token was dropped'))).toContain(reason);
    expect(seen?.authToken).toBe(token);
    gate.release?.();
    expect((await task.ended).ok).toBe(true);
    expect(platform.bearers).toEqual([`Bearer ${token}`, `Bearer ${token}`]);
    expect(logs.text()).not.toContain(fresh);
    expect(logs.text()).not.toContain(token);
  });

  it("aborts the tool's signal when the gateway cancels the call", async () => {
    const task = openTask();
    task.call('long_task');
    await expect.poll(() => gate.release).toBeDefined();
    task.stream.cancel();
    expect(await task.ended).toMatchObject({ ok: false, code: grpc.status.CANCELLED });
    await expect.poll(() => seen?.signal.aborted).toBe(true);
    expect((seen?.signal.reason as Error).message).toBe('The gateway cancelled the call.');
  });

  it("does not take the gateway's half-close for a cancellation: the call runs on to its result", async () => {
    const task = openTask();
    task.call('long_task');
    await expect.poll(() => gate.release).toBeDefined();
    task.stream.end();
    // A later call on the same connection is answered after the half-close has reached the server.
    const client = new (loadToolsProto().ToolService)(serving.address, grpc.credentials.createInsecure());
    await new Promise((resolve) => client.ListTools({}, resolve));
    client.close();
    expect(seen?.signal.aborted).toBe(false);
    gate.release?.();
    const ended = await task.ended;
    expect(ended.ok && ended.event.result?.isError).toBe(false);
  });
});

describe('the messages of a task stream', () => {
  it('must start with the call: a renewal first is INVALID_ARGUMENT', async () => {
    const task = openTask();
    task.renew('task-token-second');
    const ended = await task.ended;
    expect(ended).toMatchObject({ ok: false, code: grpc.status.INVALID_ARGUMENT });
    expect(!ended.ok && ended.details).toContain('must be the call');
    expect(platform.bearers).toEqual([]);
  });

  it('hold one call only: a second call is INVALID_ARGUMENT and aborts the first', async () => {
    const task = openTask();
    task.call('long_task');
    await expect.poll(() => gate.release).toBeDefined();
    task.call('long_task');
    expect(await task.ended).toMatchObject({ ok: false, code: grpc.status.INVALID_ARGUMENT });
    await expect.poll(() => seen?.signal.aborted).toBe(true);
  });

  it('must hold the call: a stream ended before it is INVALID_ARGUMENT', async () => {
    const task = openTask();
    task.stream.end();
    const ended = await task.ended;
    expect(ended).toMatchObject({ ok: false, code: grpc.status.INVALID_ARGUMENT });
    expect(!ended.ok && ended.details).toContain('before its call');
  });
});
