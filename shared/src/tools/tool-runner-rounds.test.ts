// The runner's side of a call's rounds and events: a run that asks ends with its questions, a run
// given the answers goes on to its result, and what the handler reports reaches the events sink
// only as far as the client asked for it. The caller check is a stand-in that always accepts.
import type { ClientAbilities__Output, InputRequest, ToolResult as ToolResultMessage } from '@platform/proto';
import { captureLogs } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Caller } from '../caller/caller.ts';
import type { CallerCheck } from '../caller/check-caller.ts';
import { createLogger } from '../service/logger.ts';
import type { CallEvents, ClientLogLevel, PlatformMcpCallContext } from './call-context.ts';
import { resultMessageOf, toolResult } from './tool-content.ts';
import { defineTool, type ToolDefinition } from './tool-definition.ts';
import { createToolRunner, type ToolCall, type ToolCallOutcome } from './tool-runner.ts';

const caller: Caller = {
  id: 'u-ada',
  audience: ['http://127.0.0.1:9'],
  actor: { clientId: 'webhook-tools' },
  companies: [{ id: 1, name: 'Acme', isOwner: false, roles: [], permissions: new Set(['device-overview:view']) }],
};
const acceptingCheck: CallerCheck = () => Promise.resolve({ ok: true, caller, credential: { scheme: 'Bearer', token: 'delegated-token' } });

const deleteForm = { message: 'Delete the webhook Boiler?', requestedSchema: z.object({ confirm: z.boolean() }) };
const reasonForm = { message: 'Why?', requestedSchema: z.object({ reason: z.string() }) };

/** A runner of `tools` with the accepting check, and what it logged. */
function runnerOf(tools: readonly ToolDefinition[]) {
  const logs = captureLogs();
  const runner = createToolRunner({
    tools,
    checkCaller: acceptingCheck,
    logger: createLogger({ name: 'tool-runner-test', level: 'info', destination: logs.destination }),
    apiBaseUrl: 'http://127.0.0.1:9',
    platformApiBaseUrls: new Map(),
    httpTimeoutMs: 1_000,
  });
  return { runner, logs };
}

const tool = (
  name: string,
  handler: (args: Record<string, unknown>, ctx: PlatformMcpCallContext) => unknown,
  extra: Partial<Parameters<typeof defineTool>[0]> = {},
) =>
  defineTool({
    name,
    title: name,
    description: `The ${name} tool.`,
    inputSchema: z.looseObject({}),
    handler: handler as never,
    ...extra,
  });

/** What the MCP client of a call can take: nothing unless said. */
const abilities = (overrides: Partial<ClientAbilities__Output> = {}): ClientAbilities__Output => ({
  progress: false,
  logLevel: 'LOG_LEVEL_UNSPECIFIED',
  elicitationForm: true,
  elicitationUrl: true,
  sampling: true,
  roots: true,
  ...overrides,
});

function callOf(name: string, overrides: Partial<ToolCall> = {}): ToolCall {
  return {
    name,
    argumentsJson: '{}',
    requestId: 'req-1',
    authorization: ['Bearer delegated-token'],
    signal: new AbortController().signal,
    client: abilities(),
    ...overrides,
  };
}

/** A sink that keeps every event. */
function recordingEvents() {
  const progress: [number, number | undefined, string][] = [];
  const logs: [ClientLogLevel, string, string][] = [];
  const events: CallEvents = {
    progress: (...event) => progress.push(event),
    log: (...event) => logs.push(event),
  };
  return { events, progress, logs };
}

function questionsOf(outcome: ToolCallOutcome): Record<string, InputRequest> {
  if (!('inputRequired' in outcome)) throw new Error(`expected questions, got ${JSON.stringify(outcome)}`);
  return outcome.inputRequired.requests ?? {};
}

function resultOf(outcome: ToolCallOutcome): ToolResultMessage {
  if (!('result' in outcome)) throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return outcome.result;
}

describe('a run that asks', () => {
  const confirmDelete = tool('delete_webhook', async (_args, ctx) => {
    const [confirm, reason] = await Promise.all([ctx.elicit(deleteForm), ctx.elicit(reasonForm)]);
    if (confirm.action !== 'accept' || !confirm.content.confirm) return { deleted: false };
    return { deleted: true, reason: reason.action === 'accept' ? reason.content.reason : null };
  });

  it('ends with every question asked together, by key', async () => {
    const { runner } = runnerOf([confirmDelete]);
    const requests = questionsOf(await runner.call(callOf('delete_webhook')));
    const keys = Object.keys(requests);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^elicit-1-/);
    expect(keys[1]).toMatch(/^elicit-2-/);
    expect(Object.values(requests).map((request) => request.form?.message)).toEqual(['Delete the webhook Boiler?', 'Why?']);
  });

  it('returns its result when run again with the answers under the same keys', async () => {
    const { runner } = runnerOf([confirmDelete]);
    const [confirmKey, reasonKey] = Object.keys(questionsOf(await runner.call(callOf('delete_webhook'))));
    const outcome = await runner.call(
      callOf('delete_webhook', {
        inputResponses: {
          [confirmKey as string]: JSON.stringify({ action: 'accept', content: { confirm: true } }),
          [reasonKey as string]: JSON.stringify({ action: 'accept', content: { reason: 'replaced' } }),
        },
      }),
    );
    expect(resultOf(outcome)).toEqual({ content: [], structuredContentJson: '{"deleted":true,"reason":"replaced"}', isError: false });
  });

  it('asks only what is still unanswered in a later round', async () => {
    const stepwise = tool('stepwise', async (_args, ctx) => {
      const roots = await ctx.listRoots({ key: 'roots' });
      const page = await ctx.elicitUrl({ message: 'Approve', url: 'https://approve.example/' }, { key: 'approve' });
      return { roots: roots.length, approved: page.action };
    });
    const { runner } = runnerOf([stepwise]);
    expect(Object.keys(questionsOf(await runner.call(callOf('stepwise'))))).toEqual(['roots']);
    const second = await runner.call(callOf('stepwise', { inputResponses: { roots: '{"roots":[]}' } }));
    expect(questionsOf(second)).toEqual({ approve: { url: { message: 'Approve', url: 'https://approve.example/' } } });
    const third = await runner.call(callOf('stepwise', { inputResponses: { roots: '{"roots":[]}', approve: '{"action":"accept"}' } }));
    expect(resultOf(third).structuredContentJson).toBe('{"roots":0,"approved":"accept"}');
  });

  it('still ends with its questions when it throws after asking', async () => {
    const impatient = tool('impatient', async (_args, ctx) => {
      void ctx.elicit(deleteForm, { key: 'confirm' });
      await Promise.resolve();
      throw new Error('gave up waiting');
    });
    const { runner } = runnerOf([impatient]);
    expect(Object.keys(questionsOf(await runner.call(callOf('impatient'))))).toEqual(['confirm']);
  });

  it('still ends with its questions when it throws at once after asking, without awaiting', async () => {
    const hasty = tool('hasty', (_args, ctx) => {
      void ctx.listRoots({ key: 'roots' });
      throw new Error('no roots yet');
    });
    const { runner } = runnerOf([hasty]);
    expect(Object.keys(questionsOf(await runner.call(callOf('hasty'))))).toEqual(['roots']);
  });

  it('answers an answer that does not fit its question as a tool error naming the question', async () => {
    const { runner } = runnerOf([tool('confirm', async (_args, ctx) => ctx.elicit(deleteForm, { key: 'confirm' }))]);
    const result = resultOf(await runner.call(callOf('confirm', { inputResponses: { confirm: '{"action":"accept","content":{"confirm":"yes"}}' } })));
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.structuredContentJson ?? '')).toMatchObject({ code: 'UNFIT_ANSWER', question: 'confirm' });
  });
});

describe('progress and log events', () => {
  const chatty = tool('chatty', (_args, ctx) => {
    ctx.progress(1, 4, 'started');
    ctx.progress(1, 4, 'the same again');
    ctx.progress(0.5);
    ctx.progress(3, 4);
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'emergency'] as const) ctx.log(level, { level, n: 1 }, 'chatty.db');
    ctx.log('critical', 'plain text');
    return { done: true };
  });

  it('sends progress only when the client gave a progress token, and only growing', async () => {
    const { runner } = runnerOf([chatty]);
    const sink = recordingEvents();
    await runner.call(callOf('chatty', { client: abilities({ progress: true }) }), sink.events);
    expect(sink.progress).toEqual([
      [1, 4, 'started'],
      [3, 4, ''],
    ]);
  });

  it('sends no progress when the client gave no progress token, or said nothing', async () => {
    const { runner } = runnerOf([chatty]);
    const without = recordingEvents();
    await runner.call(callOf('chatty', { client: abilities({ progress: false, logLevel: 'LOG_LEVEL_DEBUG' }) }), without.events);
    expect(without.progress).toEqual([]);
    expect(without.logs).not.toEqual([]);
    const silent = recordingEvents();
    await runner.call(callOf('chatty', { client: undefined }), silent.events);
    expect(silent.progress).toEqual([]);
    expect(silent.logs).toEqual([]);
  });

  it('sends log messages at the level the client asked for and above, data as JSON', async () => {
    const { runner } = runnerOf([chatty]);
    const sink = recordingEvents();
    await runner.call(callOf('chatty', { client: abilities({ logLevel: 'LOG_LEVEL_WARNING' }) }), sink.events);
    expect(sink.logs).toEqual([
      ['warning', '{"level":"warning","n":1}', 'chatty.db'],
      ['error', '{"level":"error","n":1}', 'chatty.db'],
      ['emergency', '{"level":"emergency","n":1}', 'chatty.db'],
      ['critical', '"plain text"', ''],
    ]);
  });

  it('sends every log message when the client asked for debug', async () => {
    const { runner } = runnerOf([chatty]);
    const sink = recordingEvents();
    await runner.call(callOf('chatty', { client: abilities({ logLevel: 'LOG_LEVEL_DEBUG' }) }), sink.events);
    expect(sink.logs.map(([level]) => level)).toEqual(['debug', 'info', 'notice', 'warning', 'error', 'emergency', 'critical']);
  });

  it('sends no log message when the client asked for no level', async () => {
    const { runner } = runnerOf([chatty]);
    const sink = recordingEvents();
    const outcome = await runner.call(callOf('chatty', { client: abilities({ progress: true, logLevel: 'LOG_LEVEL_UNSPECIFIED' }) }), sink.events);
    expect(sink.logs).toEqual([]);
    expect(resultOf(outcome).structuredContentJson).toBe('{"done":true}');
  });

  it('runs a reporting handler without an events sink', async () => {
    const { runner } = runnerOf([chatty]);
    const outcome = await runner.call(callOf('chatty', { client: abilities({ progress: true, logLevel: 'LOG_LEVEL_DEBUG' }) }));
    expect(resultOf(outcome).structuredContentJson).toBe('{"done":true}');
  });
});

describe('results', () => {
  it('makes a plain object into structured content without content blocks', async () => {
    const { runner } = runnerOf([tool('plain', () => ({ id: 'wh-1', count: 2 }))]);
    expect(await runner.call(callOf('plain'))).toEqual({ result: { content: [], structuredContentJson: '{"id":"wh-1","count":2}', isError: false } });
  });

  it('passes a toolResult through as it was made', async () => {
    const made = toolResult({
      content: [
        { type: 'text', text: 'Chart:' },
        { type: 'image', data: 'aGkh', mimeType: 'image/png' },
      ],
      structuredContent: { n: 1 },
    });
    const { runner } = runnerOf([tool('blocks', () => made)]);
    expect(resultOf(await runner.call(callOf('blocks')))).toEqual(resultMessageOf(made));
  });

  const withOutput = (name: string, handler: () => unknown) => tool(name, handler, { outputSchema: z.object({ count: z.number() }) });

  it('refuses as INTERNAL a toolResult without structured content from a tool that declares an outputSchema', async () => {
    const { runner, logs } = runnerOf([withOutput('no_structure', () => toolResult({ content: [{ type: 'text', text: 'three' }] }))]);
    const outcome = await runner.call(callOf('no_structure'));
    expect(outcome).toMatchObject({ refusal: { code: 'INTERNAL' } });
    expect(logs.text()).toContain('declares an outputSchema but returned no structuredContent');
  });

  it('refuses as INTERNAL a toolResult whose structured content the outputSchema refuses', async () => {
    const { runner } = runnerOf([withOutput('bad_structure', () => toolResult({ content: [], structuredContent: { count: 'three' } }))]);
    expect(await runner.call(callOf('bad_structure'))).toMatchObject({ refusal: { code: 'INTERNAL' } });
  });

  it('passes a toolResult that fits the outputSchema, and an error toolResult without structured content', async () => {
    const { runner } = runnerOf([
      withOutput('fits', () => toolResult({ content: [], structuredContent: { count: 3 } })),
      withOutput('fails', () => toolResult({ content: [{ type: 'text', text: 'No such device.' }], isError: true })),
    ]);
    expect(resultOf(await runner.call(callOf('fits'))).structuredContentJson).toBe('{"count":3}');
    expect(resultOf(await runner.call(callOf('fails')))).toEqual({ content: [{ text: 'No such device.' }], structuredContentJson: '', isError: true });
  });
});

describe('setTools', () => {
  it('replaces the tools listed and the tools called', async () => {
    const { runner } = runnerOf([tool('old_tool', () => ({ from: 'old' }))]);
    expect(runner.listing.map((listed) => listed.name)).toEqual(['old_tool']);
    runner.setTools([tool('new_tool', () => ({ from: 'new' })), tool('other_tool', () => ({ from: 'other' }))]);
    expect(runner.listing.map((listed) => listed.name)).toEqual(['new_tool', 'other_tool']);
    expect(resultOf(await runner.call(callOf('new_tool'))).structuredContentJson).toBe('{"from":"new"}');
    expect(await runner.call(callOf('old_tool'))).toMatchObject({ refusal: { code: 'NOT_FOUND' } });
  });

  it('lists each tool as ListTools answers it', () => {
    const { runner } = runnerOf([]);
    runner.setTools([tool('listed', () => ({}), { requiresPermission: 'device-overview:view', annotations: { readOnlyHint: true } })]);
    expect(runner.listing).toEqual([
      {
        name: 'listed',
        title: 'listed',
        description: 'The listed tool.',
        inputSchemaJson: expect.any(String) as unknown,
        outputSchemaJson: '',
        requiresPermission: 'device-overview:view',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: false,
        timeoutMs: 0,
        taskSupport: 'TASK_SUPPORT_FORBIDDEN',
      },
    ]);
    expect(Object.isFrozen(runner.listing)).toBe(true);
  });
});
