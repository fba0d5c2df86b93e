// A hostile tool service of the second revision (CallToolStream, without the SDK) against the
// gateway: every string of its results cleaned (structured content's keys and values too), a result
// nested 50,000 levels deep answered at once as an error naming the service (the gateway serving the
// next call), content blocks MCP does not know or links that run code refused, questions outside
// MCP's rules never put to the person, and floods of events bounded.
import * as grpc from '@grpc/grpc-js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { CallToolEvent } from '@platform/proto';
import { describe, expect, it } from 'vitest';
import { errorMetaKey } from '../src/tool-results/index.ts';
import { eras, stackForTests, textOf, until } from './harness.ts';
import { registeredRawServiceForTests } from './raw-tool-service.ts';

const stack = stackForTests();

const tools = [
  'controls',
  'collide',
  'deep',
  'odd_block',
  'script_link',
  'bad_mime',
  'nested_form',
  'many_questions',
  'flood',
  'no_final',
  'two_finals',
  'big_log',
];
const result = (event: CallToolEvent['result']): CallToolEvent => ({ result: event });
const textBlock = (text: string) => ({ text });
const depth = 50_000;

function answer(name: string): { events: Iterable<CallToolEvent>; status?: { code: grpc.status; details: string } } {
  switch (name) {
    case 'controls':
      return {
        events: [
          result({
            content: [textBlock('Done\u001b[2J\u0000 \u202Eetirw\u2028next')],
            structuredContentJson: JSON.stringify({ 'na\u0000me\u202E': 'va\u0007lue\u2066', list: ['\u001b[31mred', { 'in\u200Fner': 'x\u0085' }] }),
            isError: false,
          }),
        ],
      };
    case 'collide':
      return { events: [result({ content: [], structuredContentJson: '{"key":1,"k\\u0000ey":2}', isError: false })] };
    case 'deep':
      return { events: [result({ content: [], structuredContentJson: `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`, isError: false })] };
    case 'odd_block':
      return { events: [result({ content: [{}], structuredContentJson: '', isError: false })] };
    case 'script_link':
      return {
        events: [
          result({ content: [{ resourceLink: { uri: 'javascript:alert(document.cookie)', name: 'Click me' } }], structuredContentJson: '', isError: false }),
        ],
      };
    case 'bad_mime':
      return {
        events: [
          result({ content: [{ image: { data: Buffer.from('png'), mimeType: 'image/png\r\nX-Injected: 1' } }], structuredContentJson: '', isError: false }),
        ],
      };
    case 'nested_form':
      return {
        events: [
          {
            inputRequired: {
              requests: {
                q: {
                  form: {
                    message: 'Your address?',
                    requestedSchemaJson: JSON.stringify({
                      type: 'object',
                      properties: { address: { type: 'object', properties: { street: { type: 'string' } } } },
                    }),
                  },
                },
              },
            },
          },
        ],
      };
    case 'many_questions':
      return {
        events: [
          {
            inputRequired: {
              requests: Object.fromEntries(
                Array.from({ length: 40 }, (_, index) => [
                  `q${index}`,
                  { form: { message: `Question ${index}?`, requestedSchemaJson: '{"type":"object","properties":{}}' } },
                ]),
              ),
            },
          },
        ],
      };
    case 'flood':
      return {
        events: (function* () {
          for (let index = 1; index <= 100_000; index += 1) yield { progress: { progress: index, total: 100_000, message: 'x' } };
          for (let index = 1; index <= 2_000; index += 1) yield { log: { level: 'LOG_LEVEL_ERROR', logger: 'flood', dataJson: '"spam"' } };
          yield result({ content: [textBlock('flooded')], structuredContentJson: '', isError: false });
        })(),
      };
    case 'no_final':
      return { events: [{ progress: { progress: 1, message: 'started' } }] };
    case 'two_finals':
      return {
        events: [
          result({ content: [textBlock('first')], structuredContentJson: '', isError: false }),
          result({ content: [textBlock('second')], structuredContentJson: '', isError: false }),
        ],
      };
    case 'big_log':
      return {
        events: [
          { log: { level: 'LOG_LEVEL_INFO', logger: 'big', dataJson: JSON.stringify('z'.repeat(1_000_000)) } },
          result({ content: [textBlock('logged')], structuredContentJson: '', isError: false }),
        ],
      };
    default:
      return { events: [], status: { code: grpc.status.NOT_FOUND, details: 'no such tool' } };
  }
}

registeredRawServiceForTests(stack, 'hostile-streams', 'controls', {
  tools: tools.map((name) => ({ name, description: `Hostile: ${name}.`, inputSchemaJson: '{"type":"object"}', readOnlyHint: true })),
  stream: (request) => answer(request.name),
});

describe.each(eras)('a hostile streaming tool service, seen by a v2 client on the %s revision', (era) => {
  const call = async (
    name: string,
    options: Parameters<Awaited<ReturnType<ReturnType<typeof stack>['connect']>>['callTool']>[1] = {},
  ): Promise<CallToolResult> => {
    const client = await stack().connect('oscar', era, { client: { capabilities: { elicitation: { form: {} } } } });
    client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: {} }));
    return client.callTool({ name: `fleet-insights__${name}`, arguments: {} }, options);
  };

  it('has every string of its result cleaned of controls, structured content keys and values included', async () => {
    const shown = await call('controls');
    expect(shown.isError).toBeFalsy();
    expect(textOf(shown)).toBe('Done[2J etirw\nnext');
    expect(shown.structuredContent).toEqual({ name: 'value', list: ['[31mred', { inner: 'x' }] });
  });

  it('has structured content whose keys would read the same once cleaned refused, no value dropped silently', async () => {
    const shown = await call('collide');
    expect(shown.isError).toBe(true);
    expect(shown._meta?.[errorMetaKey]).toMatchObject({ code: 'UNREADABLE_RESULT' });
  });

  it(`has a result nested ${depth} levels deep answered at once as an error naming the service, and the next call is served`, async () => {
    const started = performance.now();
    const shown = await call('deep');
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(shown.isError).toBe(true);
    expect(textOf(shown)).toContain('fleet-insights__deep answered a result nested deeper than 64 levels');
    expect(textOf(await call('controls'))).toBe('Done[2J etirw\nnext');
  });

  it.each([
    ['odd_block', 'is of no kind MCP knows'],
    ['script_link', 'has a javascript: URI'],
    ['bad_mime', 'has no valid MIME type'],
  ])('has a result with %s refused as unreadable, saying why', async (name, why) => {
    const shown = await call(name);
    expect(shown.isError).toBe(true);
    expect(textOf(shown)).toContain(why);
  });

  it.each([
    ['nested_form', 'asks for a form outside what MCP allows'],
    ['many_questions', 'asked 40 questions at once'],
  ])('never puts %s to the person: the call fails naming the fault of the tool', async (name, why) => {
    const shown = await call(name);
    expect(shown.isError).toBe(true);
    expect(shown._meta?.[errorMetaKey]).toMatchObject({ code: 'UNASKABLE_QUESTION' });
    expect(textOf(shown)).toContain(why);
  });

  it('passes on a few of 100,000 progress events and 2,000 log messages, and the result', async () => {
    const progress: number[] = [];
    const shown = await call('flood', { onprogress: (event) => progress.push(event.progress) });
    expect(textOf(shown)).toBe('flooded');
    expect(progress.length).toBeLessThanOrEqual(30);
  });

  it('answers a stream that ends without a result as a failure of the service, and takes the first of two results', async () => {
    const none = await call('no_final');
    expect(none.isError).toBe(true);
    expect(none._meta?.[errorMetaKey]).toMatchObject({ code: 'TOOL_FAILED' });
    expect(textOf(await call('two_finals'))).toBe('first');
  });
});

it('replaces a log message larger than the gateway passes on with a line saying so', async () => {
  const client = await stack().connect('oscar', 'legacy');
  const messages: unknown[] = [];
  client.setNotificationHandler('notifications/message', (notification) => {
    messages.push(notification.params.data);
  });
  expect(textOf(await client.callTool({ name: 'fleet-insights__big_log', arguments: {} }))).toBe('logged');
  await until(() => messages.length > 0, 'the log message arrived');
  expect(messages).toEqual(['[a log message larger than the gateway passes on]']);
});
