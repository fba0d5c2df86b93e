// The official MCP conformance suite's fixture tools, as a tool service on the SDK: what a tool
// behind the gateway can do (every content type, progress, logging, questions to the person and to
// the client's model, multi-round questions, a JSON Schema as it is, arguments mirrored in headers,
// tools run as MCP tasks: conformance-task-tools.ts), shown by the suite itself. Run it against a running stack, then the suite at the gateway (signed
// in as a seeded person):
//   npm run example -- conformance-tools
//   npm run conformance -- --requirements 2026-07-28      (or 2025-11-25, or --scenario <name>)
// Like any tool service it takes the SDK's variables (APP_CLIENT_ID, APP_CLIENT_SECRET, SERVICE_NAME,
// GATEWAY_ADDRESS, CALLBACK_ADDRESS); the suite calls its tools by their own names, so the gateway
// must keep its app's names plain (REGISTRY_PLAIN_NAMES_APP, webhook-tools on npm start).
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger, exitOnStartupFailure, loadPlatformMcpSettings, platformAppIdentity, stopOnSignals } from '@platform/tool-sdk';
import {
  createToolApp,
  defineTool,
  jsonSchema,
  toolResult,
  ToolError,
  type PlatformMcpCallContext,
  type ToolApp,
  type ToolDefinition,
} from '@platform/tool-sdk/tools';
import { z } from 'zod';
import { conformanceTaskTools } from './conformance-task-tools.ts';

/** A 1x1 PNG and the header of a WAV file: the suite's own payloads. */
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const wav = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const none = z.strictObject({});
const text = (value: string) => toolResult({ content: [{ type: 'text', text: value }] });
const sampledText = (content: unknown) => (content as { text?: unknown } | undefined)?.text;

/** A tool of no arguments. */
const plain = (name: string, description: string, handler: (ctx: PlatformMcpCallContext) => unknown) =>
  defineTool({ name, title: name, description, inputSchema: none, handler: (_args, ctx) => handler(ctx) as never });

const nameQuestion = {
  message: 'What is your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
} as const;
const confirmQuestion = { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } as const;

const contentTools = [
  plain('test_simple_text', 'Tests simple text content response', () => text('This is a simple text response for testing.')),
  plain('test_image_content', 'Tests image content response', () => toolResult({ content: [{ type: 'image', data: png, mimeType: 'image/png' }] })),
  plain('test_audio_content', 'Tests audio content response', () => toolResult({ content: [{ type: 'audio', data: wav, mimeType: 'audio/wav' }] })),
  plain('test_embedded_resource', 'Tests embedded resource content response', () =>
    toolResult({
      content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
    }),
  ),
  plain('test_multiple_content_types', 'Tests response with multiple content types (text, image, resource)', () =>
    toolResult({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: png, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
      ],
    }),
  ),
  plain('test_error_handling', 'Tests error response handling', () => {
    throw new ToolError('TEST_ERROR', 'This tool intentionally returns an error for testing');
  }),
];

const reportingTools = [
  plain('test_tool_with_progress', 'Tests tool that reports progress notifications', async (ctx) => {
    for (const step of [0, 50, 100]) {
      if (step > 0) await sleep(50, undefined, { signal: ctx.signal });
      ctx.progress(step, 100, `Completed step ${step} of 100`);
    }
    return text('Progress reported: 3 steps.');
  }),
  plain('test_tool_with_logging', 'Tests tool that emits log messages during execution', async (ctx) => {
    for (const [index, message] of ['Tool execution started', 'Tool processing data', 'Tool execution completed'].entries()) {
      if (index > 0) await sleep(50, undefined, { signal: ctx.signal });
      ctx.log('info', message);
    }
    return text('Tool with logging executed successfully');
  }),
  plain('test_logging_tool', 'Diagnostic logging validator tool', (ctx) => {
    ctx.log('info', 'Diagnostic trace logging activated');
    return text('Logging evaluated');
  }),
  plain('test_streaming_elicitation', 'Diagnostic tool validating response progress streams', (ctx) => {
    ctx.progress(50, 100, 'Half way');
    return text('Streaming complete');
  }),
];

const questionTools = [
  defineTool({
    name: 'test_sampling',
    title: 'test_sampling',
    description: 'Tests server-initiated sampling (LLM completion request)',
    inputSchema: z.strictObject({ prompt: z.string().describe('The prompt to send to the LLM') }),
    handler: async ({ prompt }, ctx) => {
      const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
      return text(`LLM response: ${String(sampledText(answer.content))}`);
    },
  }),
  defineTool({
    name: 'test_elicitation',
    title: 'test_elicitation',
    description: 'Tests server-initiated elicitation (user input request)',
    inputSchema: z.strictObject({ message: z.string().describe('The message to show the user') }),
    handler: async ({ message }, ctx) => {
      const answer = await ctx.elicit({
        message,
        requestedSchema: { type: 'object', properties: { response: { type: 'string', description: "User's response" } }, required: ['response'] },
      });
      return text(`User response: action=${answer.action}, content=${JSON.stringify(answer.action === 'accept' ? answer.content : {})}`);
    },
  }),
  plain('test_elicitation_sep1034_defaults', 'Tests elicitation with default values per SEP-1034', async (ctx) => {
    const answer = await ctx.elicit({
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
        required: [],
      },
    });
    return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.action === 'accept' ? answer.content : {})}`);
  }),
  plain('test_elicitation_sep1330_enums', 'Tests elicitation with enum schema improvements per SEP-1330', async (ctx) => {
    const titled = (prefix: string, names: readonly string[]) => names.map((title, index) => ({ const: `value${index + 1}`, title: `${title} ${prefix}` }));
    const answer = await ctx.elicit({
      message: 'Please select options from the enum fields',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
          titledSingle: { type: 'string', description: 'Select one option with titles', oneOf: titled('Option', ['First', 'Second', 'Third']) },
          legacyEnum: {
            type: 'string',
            description: 'Select one option (legacy)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Select multiple options',
            minItems: 1,
            maxItems: 3,
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Select multiple options with titles',
            minItems: 1,
            maxItems: 3,
            items: { anyOf: titled('Choice', ['First', 'Second', 'Third']) },
          },
        },
        required: [],
      },
    });
    return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.action === 'accept' ? answer.content : {})}`);
  }),
  plain('test_missing_capability', 'Test tool requiring sampling', async (ctx) => {
    await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Sample request' } }], maxTokens: 50 });
    return text('Success');
  }),
];

/** The input-required result scenarios (multi round-trip requests): the suite checks the keys of some questions. */
const roundTools = [
  plain('test_input_required_result_elicitation', 'MRTR: returns InputRequiredResult with elicitation request', async (ctx) => {
    const answer = await ctx.elicit(nameQuestion, { key: 'user_name' });
    return text(`Hello, ${answer.action === 'accept' ? String(answer.content.name) : 'unknown'}!`);
  }),
  plain('test_input_required_result_sampling', 'MRTR: returns InputRequiredResult with sampling request', async (ctx) => {
    const answer = await ctx.sample(
      { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
      { key: 'sample_request' },
    );
    return text(`Sampling result: ${String(sampledText(answer.content))}`);
  }),
  plain('test_input_required_result_list_roots', 'MRTR: returns InputRequiredResult with roots/list request', async (ctx) => {
    const roots = await ctx.listRoots({ key: 'roots_request' });
    return text(`Found ${roots.length} root(s)`);
  }),
  plain('test_input_required_result_request_state', 'MRTR: returns InputRequiredResult with requestState', async (ctx) => {
    const answer = await ctx.elicit(confirmQuestion, { key: 'confirm' });
    return text(answer.action === 'accept' && answer.content.ok === true ? 'state-ok: requestState validated' : 'not confirmed');
  }),
  plain('test_input_required_result_multiple_inputs', 'MRTR: returns InputRequiredResult with multiple input requests', async (ctx) => {
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit(nameQuestion, { key: 'user_name' }),
      ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }, { key: 'greeting' }),
      ctx.listRoots({ key: 'client_roots' }),
    ]);
    return text(
      `Name: ${name.action === 'accept' ? String(name.content.name) : 'unknown'}; Greeting: ${String(sampledText(greeting.content))}; Roots: ${roots.length}`,
    );
  }),
  plain('test_input_required_result_multi_round', 'MRTR: multi-round InputRequiredResult workflow', async (ctx) => {
    const step = (message: string, field: string) =>
      ({ message, requestedSchema: { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] } }) as const;
    const name = await ctx.elicit(step('Step 1: What is your name?', 'name'), { key: 'step1' });
    const color = await ctx.elicit(step('Step 2: What is your favorite color?', 'color'), { key: 'step2' });
    const said = (answer: typeof name, field: string) => (answer.action === 'accept' ? String(answer.content[field]) : 'unknown');
    return text(`Multi-round complete for ${said(name, 'name')} who likes ${said(color, 'color')}`);
  }),
  plain('test_input_required_result_tampered_state', 'MRTR: requestState integrity test (the gateway seals every state)', async (ctx) => {
    const answer = await ctx.elicit(confirmQuestion, { key: 'confirm' });
    return text(answer.action === 'accept' ? 'confirmed' : 'not confirmed');
  }),
  plain('test_input_required_result_capabilities', 'MRTR: respects client capabilities in inputRequests', async (ctx) => {
    // Only what the client declared it can answer.
    const asked: Promise<unknown>[] = [];
    if (ctx.client.elicitation.form) asked.push(ctx.elicit(nameQuestion, { key: 'elicit_input' }));
    if (ctx.client.sampling)
      asked.push(ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Sample request' } }], maxTokens: 50 }, { key: 'sample_input' }));
    await Promise.all(asked);
    return text(`Answered ${asked.length} question(s) the client can answer`);
  }),
];

/** JSON Schema 2020-12 as it is (SEP-1613): published unchanged, arguments checked by Ajv. */
const jsonSchemaTool = defineTool({
  name: 'json_schema_2020_12_tool',
  title: 'json_schema_2020_12_tool',
  description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)',
  inputSchema: jsonSchema({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
    properties: {
      name: { type: 'string' },
      address: { $ref: '#/$defs/address' },
      contactMethod: { type: 'string', enum: ['phone', 'email'] },
      phone: { type: 'string' },
      email: { type: 'string' },
    },
    allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
    if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
    then: { required: ['phone'] },
    else: { required: ['email'] },
    additionalProperties: false,
  }),
  handler: (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
});

/** Arguments a 2026-07-28 client mirrors into Mcp-Param-* headers (SEP-2243), checked by the gateway. */
const customHeadersTool = defineTool({
  name: 'test_custom_headers',
  title: 'test_custom_headers',
  description: 'Tests arguments mirrored into Mcp-Param headers (SEP-2243)',
  inputSchema: z.strictObject({
    region: z.string().describe('Where to run').meta({ 'x-mcp-header': 'Region' }),
    priority: z.number().int().optional().meta({ 'x-mcp-header': 'Priority' }),
  }),
  handler: ({ region }) => text(`Ran in ${region}`),
});

const ownTools = [...contentTools, ...reportingTools, ...questionTools, ...roundTools, jsonSchemaTool, customHeadersTool];
/** Every fixture tool (the tasks scenarios' among them) but the one that changes the list. */
export const conformanceTools: readonly ToolDefinition[] = [...ownTools, ...conformanceTaskTools];

const dynamicTool = plain('test_dynamic_tool', 'A tool that comes and goes with test_trigger_tool_change', () => text('Dynamic tool called'));

/**
 * Registers the fixture tools on `app`, with test_trigger_tool_change, which adds or withdraws
 * test_dynamic_tool while the service runs: the gateway lists the service's tools anew and tells its
 * clients (`notifications/tools/list_changed`).
 */
export function registerConformanceTools(app: ToolApp): void {
  const trigger = plain('test_trigger_tool_change', 'Adds or withdraws test_dynamic_tool, so the tool list changes', () => {
    const present = app.tools.some((tool) => tool.name === dynamicTool.name);
    if (present) app.removeTools([dynamicTool.name]);
    else app.registerTools([dynamicTool]);
    return text(present ? 'Mutation triggered: test_dynamic_tool withdrawn' : 'Mutation triggered: test_dynamic_tool added');
  });
  app.registerTools([...conformanceTools, trigger]);
}

if (import.meta.main) {
  const settings = exitOnStartupFailure('conformance-tools', () => loadPlatformMcpSettings(process.env));
  const logger = createLogger({ name: settings.serviceName });
  const app = createToolApp({ settings, identity: platformAppIdentity(settings), logger });
  registerConformanceTools(app);
  const serving = await exitOnStartupFailure('conformance-tools', () => app.serve());
  stopOnSignals({ logger, steps: [() => serving.close()] });
}
