// What a tool on the SDK can do through the gateway, as MCP clients meet it on both revisions and
// with both lines of the MCP SDK: progress for a client that gave a token, log messages at the level
// it asked for, a form or a link put to the person (the 2026-07-28 model of rounds on both
// revisions), a readable refusal for a client that cannot ask, and a cancellation that reaches the
// tool's signal. The tools run in a service of their own (fleet-insights), on a delegated token.
import { setTimeout as sleep } from 'node:timers/promises';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ProtocolError, type Client, type ElicitRequest, type LoggingMessageNotification } from '@modelcontextprotocol/client';
import { defineTool, toolResult } from '@platform/tool-sdk/tools';
import { startedForTests } from '@platform/tool-sdk/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorMetaKey } from '../src/tool-results/index.ts';
import { eras, stackForTests, textOf, until, type Era, type Stack, toolAppAt } from './harness.ts';

const stack = stackForTests({ gatewayEnv: { MCP_INPUT_MAX_ROUNDS: '3' } });
const text = (value: string) => toolResult({ content: [{ type: 'text', text: value }] });
/** Every call of `wait_for_cancel` the service ran, and whether its signal was aborted, and why. */
const waits: { aborted: boolean; reason: string }[] = [];

const abilityTools = [
  defineTool({
    name: 'count_to',
    title: 'Count to n',
    description: 'Reports progress n times, then answers with what the client could take.',
    inputSchema: z.strictObject({ n: z.number().int().min(1).max(10_000), pauseMs: z.number().int().min(0).max(100).default(0) }),
    handler: async ({ n, pauseMs }, ctx) => {
      for (let step = 1; step <= n; step += 1) {
        ctx.progress(step, n, `step ${step} of ${n}`);
        if (pauseMs > 0) await sleep(pauseMs);
      }
      return text(`counted to ${n}; progress asked: ${ctx.client.progress}`);
    },
  }),
  defineTool({
    name: 'count_and_ask',
    title: 'Count, ask, count',
    description: 'Reports progress 1 and 2, asks the person their name, then reports 3 and 4 (again from 1 in each round, as a tool that runs again does).',
    inputSchema: z.strictObject({}),
    handler: async (_args, ctx) => {
      ctx.progress(1, 4, 'one');
      ctx.progress(2, 4, 'two');
      const answer = await ctx.elicit({ message: 'What is your name?', requestedSchema: z.object({ name: z.string().min(1).max(100) }) });
      ctx.progress(3, 4, 'three');
      ctx.progress(4, 4, 'four');
      return text(answer.action === 'accept' ? `counted for ${answer.content.name}` : 'no name');
    },
  }),
  defineTool({
    name: 'chatty',
    title: 'Chatty',
    description: 'Logs once at each level, then answers with the level the client asked for.',
    inputSchema: z.strictObject({}),
    handler: (_args, ctx) => {
      for (const level of ['debug', 'info', 'warning', 'error'] as const) ctx.log(level, { said: `at ${level}` }, 'chatty');
      return text(`log level: ${ctx.client.logLevel ?? 'none'}`);
    },
  }),
  defineTool({
    name: 'ask_name',
    title: 'Ask a name',
    description: 'Asks the person their name, then greets them.',
    inputSchema: z.strictObject({}),
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'What is your name?', requestedSchema: z.object({ name: z.string().min(1).max(100) }) });
      return text(answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `No name (${answer.action})`);
    },
  }),
  defineTool({
    name: 'open_link',
    title: 'Open a link',
    description: 'Sends the person to a page, then says whether they went.',
    inputSchema: z.strictObject({ url: z.string() }),
    handler: async ({ url }, ctx) => {
      const answer = await ctx.elicitUrl({ message: 'Approve the export at your bank', url });
      return text(`link: ${answer.action}`);
    },
  }),
  defineTool({
    name: 'ask_forever',
    title: 'Ask for ever',
    description: 'Asks one more question each round, and never answers.',
    inputSchema: z.strictObject({}),
    handler: async (_args, ctx) => {
      for (let round = 0; ; round += 1) await ctx.elicit({ message: `Question ${round}?`, requestedSchema: z.object({}) }, { key: `q${round}` });
    },
  }),
  defineTool({
    name: 'wait_for_cancel',
    title: 'Wait for a cancellation',
    description: 'Waits until its call is cancelled (or 20 s).',
    inputSchema: z.strictObject({}),
    handler: async (_args, ctx) => {
      const seen = { aborted: false, reason: '' };
      waits.push(seen);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 20_000);
        ctx.signal.addEventListener('abort', () => {
          seen.aborted = true;
          seen.reason = String((ctx.signal.reason as Error | undefined)?.message);
          clearTimeout(timer);
          resolve();
        });
      });
      return text('waited');
    },
  }),
];

startedForTests(async () => {
  const app = toolAppAt(stack(), 'fleet-insights', 'abilities');
  app.registerTools(abilityTools);
  const serving = await app.serve();
  await until(() => stack().gateway.registry.catalog().byName('fleet-insights__count_to') !== undefined, 'the ability tools registered');
  return { close: () => serving.close() };
});

const tool = (name: string) => `fleet-insights__${name}`;

/** A v2 client that answers forms with `answer` (and links with accept), declaring `capabilities`. */
async function v2Client(
  at: Stack,
  era: Era,
  options: { answer?: (request: ElicitRequest) => unknown; capabilities?: Record<string, unknown> } = {},
): Promise<Client> {
  const capabilities = options.capabilities ?? { elicitation: { form: {}, url: {} } };
  const client = await at.connect('oscar', era, { client: { capabilities } });
  if (capabilities.elicitation !== undefined) {
    client.setRequestHandler('elicitation/create', (request) => (options.answer ?? (() => ({ action: 'accept', content: { name: 'Ada' } })))(request) as never);
  }
  return client;
}

/** A client on the v1 SDK (2025-11-25 only), answering forms with `content`. */
async function v1Client(at: Stack, content: Record<string, unknown> = { name: 'Grace' }): Promise<V1Client> {
  const client = new V1Client({ name: 'v1-host', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content }));
  const token = await at.tokenFor('oscar');
  await client.connect(new V1Transport(new URL(at.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

const v1Text = (result: Awaited<ReturnType<V1Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');

describe('progress', () => {
  it.each(eras)('reaches a v2 client on the %s revision that gave a progress token, in order, before the result', async (era) => {
    const client = await v2Client(stack(), era);
    const seen: number[] = [];
    const result = await client.callTool(
      { name: tool('count_to'), arguments: { n: 5, pauseMs: 20 } },
      {
        onprogress: (progress) => {
          seen.push(progress.progress);
        },
      },
    );
    expect(textOf(result)).toBe('counted to 5; progress asked: true');
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it.each(eras)('is not sent to a client on the %s revision that gave no progress token, and the tool knows it', async (era) => {
    const client = await v2Client(stack(), era);
    expect(textOf(await client.callTool({ name: tool('count_to'), arguments: { n: 3 } }))).toBe('counted to 3; progress asked: false');
  });

  it('reaches a v1 SDK client on 2025-11-25', async () => {
    const client = await v1Client(stack());
    const seen: number[] = [];
    const result = await client.callTool({ name: tool('count_to'), arguments: { n: 3, pauseMs: 20 } }, undefined, {
      onprogress: (progress) => {
        seen.push(progress.progress);
      },
    });
    expect(v1Text(result)).toBe('counted to 3; progress asked: true');
    expect(seen).toEqual([1, 2, 3]);
    await client.close();
  });

  it('only grows on 2025-11-25 while the tool runs again after a question: what it reports again is not sent twice', async () => {
    const client = await v2Client(stack(), 'legacy');
    const seen: number[] = [];
    const result = await client.callTool({ name: tool('count_and_ask'), arguments: {} }, { onprogress: (progress) => seen.push(progress.progress) });
    expect(textOf(result)).toBe('counted for Ada');
    expect(seen).toEqual([1, 2, 3, 4]);

    const v1 = await v1Client(stack());
    const v1Seen: number[] = [];
    const v1Result = await v1.callTool({ name: tool('count_and_ask'), arguments: {} }, undefined, { onprogress: (progress) => v1Seen.push(progress.progress) });
    expect(v1Text(v1Result)).toBe('counted for Grace');
    expect(v1Seen).toEqual([1, 2, 3, 4]);
    await v1.close();
  });

  it.each(eras)('is bounded in rate on the %s revision: a tool reporting 5,000 times is passed on a few times, its last report included', async (era) => {
    const client = await v2Client(stack(), era);
    const seen: number[] = [];
    await client.callTool({ name: tool('count_to'), arguments: { n: 5_000 } }, { onprogress: (progress) => seen.push(progress.progress) });
    expect(seen.length).toBeLessThanOrEqual(20);
    expect(seen.at(-1)).toBe(5_000);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });
});

/* eslint-disable @typescript-eslint/no-deprecated -- MCP logging is deprecated by 2026-07-28 (SEP-2577) but served in its window: these tests are of it */
describe('log messages', () => {
  it('reach a 2025-11-25 session at the level it set, and none below it', async () => {
    const client = await v2Client(stack(), 'legacy');
    const messages: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      messages.push(notification.params);
    });
    await client.setLoggingLevel('warning');
    const result = await client.callTool({ name: tool('chatty'), arguments: {} });
    expect(textOf(result)).toBe('log level: warning');
    await until(() => messages.length >= 2, 'the log messages arrived');
    expect(messages.map((message) => message.level)).toEqual(['warning', 'error']);
    expect(messages[0]).toMatchObject({ logger: 'chatty', data: { said: 'at warning' } });
  });

  it('reach a 2026-07-28 request at the level its _meta asks for, and none without one', async () => {
    const client = await v2Client(stack(), 'modern');
    const messages: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      messages.push(notification.params);
    });
    expect(textOf(await client.callTool({ name: tool('chatty'), arguments: {} }))).toBe('log level: none');
    expect(messages).toEqual([]);
    const result = await client.callTool({ name: tool('chatty'), arguments: {}, _meta: { 'io.modelcontextprotocol/logLevel': 'info' } });
    expect(textOf(result)).toBe('log level: info');
    expect(messages.map((message) => message.level)).toEqual(['info', 'warning', 'error']);
  });

  it('reach a v1 SDK client after logging/setLevel', async () => {
    const client = await v1Client(stack());
    const levels: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      levels.push(notification.params.level);
    });
    await client.setLoggingLevel('error');
    await client.callTool({ name: tool('chatty'), arguments: {} });
    await until(() => levels.length >= 1, 'the log message arrived');
    expect(levels).toEqual(['error']);
    await client.close();
  });
});

/* eslint-enable @typescript-eslint/no-deprecated */

describe('a form put to the person', () => {
  it.each(eras)('is answered by a v2 client on the %s revision, and the tool runs again with the answer', async (era) => {
    const asked: ElicitRequest[] = [];
    const client = await v2Client(stack(), era, {
      answer: (request) => {
        asked.push(request);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    const result = await client.callTool({ name: tool('ask_name'), arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('Hello, Ada!');
    expect(asked).toHaveLength(1);
    expect(asked[0]?.params).toMatchObject({ message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
  });

  it.each(eras)('declined on the %s revision, reaches the tool as declined', async (era) => {
    const client = await v2Client(stack(), era, { answer: () => ({ action: 'decline' }) });
    expect(textOf(await client.callTool({ name: tool('ask_name'), arguments: {} }))).toBe('No name (decline)');
  });

  it('is answered by a v1 SDK client on 2025-11-25', async () => {
    const client = await v1Client(stack(), { name: 'Grace' });
    expect(v1Text(await client.callTool({ name: tool('ask_name'), arguments: {} }))).toBe('Hello, Grace!');
    await client.close();
  });

  it.each(eras)('answered beside the form on the %s revision, fails the call saying why, never loops', async (era) => {
    let asked = 0;
    const client = await v2Client(stack(), era, {
      answer: () => {
        asked += 1;
        return { action: 'accept', content: { name: '' } };
      },
    });
    const result = await client.callTool({ name: tool('ask_name'), arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('does not fit it');
    expect(asked).toBe(1);
  });

  it('is refused with a readable result for a 2025-11-25 client that cannot ask the person', async () => {
    const client = await v2Client(stack(), 'legacy', { capabilities: {} });
    const result = await client.callTool({ name: tool('ask_name'), arguments: {} });
    expect(result.isError).toBe(true);
    expect(result._meta?.[errorMetaKey]).toMatchObject({ code: 'CLIENT_CANNOT_ANSWER' });
    expect(textOf(result)).toContain('needs a form ("What is your name?") to go on, but this client did not declare that it can answer (elicitation)');
  });

  it("is refused at once on 2026-07-28 for a client that cannot ask the person, with MCP's missing-capability error saying why", async () => {
    const client = await v2Client(stack(), 'modern', { capabilities: {} });
    const refused = await client.callTool({ name: tool('ask_name'), arguments: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ProtocolError);
    expect((refused as ProtocolError).code).toBe(-32021);
    expect((refused as ProtocolError).message).toContain('needs a form ("What is your name?") to go on');
    expect((refused as ProtocolError).data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } });
  });
});

describe('rounds of questions', () => {
  it.each(eras)('end on the %s revision once a call has asked MCP_INPUT_MAX_ROUNDS times, saying so', async (era) => {
    let asked = 0;
    const client = await v2Client(stack(), era, {
      answer: () => {
        asked += 1;
        return { action: 'accept', content: {} };
      },
    });
    const result = await client.callTool({ name: tool('ask_forever'), arguments: {} });
    expect(result.isError).toBe(true);
    expect(result._meta?.[errorMetaKey]).toMatchObject({ code: 'TOO_MANY_ROUNDS' });
    expect(textOf(result)).toContain('asked questions 4 times in one call; the gateway allows 3');
    expect(asked).toBe(3);
  });
});

describe('a link the person is sent to (URL mode)', () => {
  it.each(eras)('reaches a v2 client on the %s revision with the host named, and the tool hears the answer', async (era) => {
    const asked: ElicitRequest[] = [];
    const client = await v2Client(stack(), era, {
      answer: (request) => {
        asked.push(request);
        return { action: 'accept' };
      },
    });
    const result = await client.callTool({ name: tool('open_link'), arguments: { url: 'https://bank.example.com/approve?export=1' } });
    expect(textOf(result)).toBe('link: accept');
    expect(asked[0]?.params).toMatchObject({ mode: 'url', url: 'https://bank.example.com/approve?export=1' });
    expect(asked[0]?.params.message).toBe('Approve the export at your bank\n\nThe link opens bank.example.com.');
  });

  it.each(eras)('is not sent on the %s revision when it is plain http: the call fails naming the fault', async (era) => {
    const client = await v2Client(stack(), era);
    const result = await client.callTool({ name: tool('open_link'), arguments: { url: 'http://bank.example.com/approve' } });
    expect(result.isError).toBe(true);
    expect(result._meta?.[errorMetaKey]).toMatchObject({ code: 'UNASKABLE_QUESTION' });
    expect(textOf(result)).toContain('links to http (only https is allowed)');
  });
});

describe('cancellation', () => {
  it.each(eras)('of a call by a v2 client on the %s revision reaches the tool’s signal', async (era) => {
    const client = await v2Client(stack(), era);
    const before = waits.length;
    const controller = new AbortController();
    const call = client.callTool({ name: tool('wait_for_cancel'), arguments: {} }, { signal: controller.signal });
    await until(() => waits.length > before, 'the tool started');
    controller.abort();
    await expect(call).rejects.toThrow();
    await until(() => waits[before]?.aborted === true, 'the tool saw its signal aborted');
    expect(waits[before]?.reason).toBe('The gateway cancelled the call.');
  });
});
