import { thrownBy } from '@platform/devtools/thrown';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../service/logger.ts';
import { defineTool, ToolDefinitionError } from './tool-definition.ts';
import { createToolRunner } from './tool-runner.ts';

const valid = {
  name: 'list_webhooks',
  title: 'List webhooks',
  description: "A company's webhook configurations.",
  inputSchema: z.strictObject({ companyId: z.number().int().positive().describe('The company') }),
  requiresPermission: 'device-overview:view',
  annotations: { readOnlyHint: true },
  handler: () => ({ webhooks: [] }),
};

const refusal = (spec: Record<string, unknown>): string => thrownBy(() => defineTool({ ...valid, ...spec }), ToolDefinitionError).message;

describe('defineTool', () => {
  it('publishes the input schema as JSON Schema draft 2020-12 with its descriptions', () => {
    const tool = defineTool(valid);
    expect(JSON.parse(tool.inputJsonSchema)).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { companyId: { type: 'integer', exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'The company' } },
      required: ['companyId'],
      additionalProperties: false,
    });
    expect(tool.outputJsonSchema).toBe('');
    expect(tool.checksAtCompanyArgument).toBe(true);
    expect(Object.isFrozen(tool)).toBe(true);
  });

  it('publishes an output schema when one is given', () => {
    const tool = defineTool({ ...valid, outputSchema: z.object({ webhooks: z.array(z.string()) }) });
    expect(JSON.parse(tool.outputJsonSchema)).toMatchObject({ type: 'object', required: ['webhooks'] });
  });

  it('writes a nullable field as anyOf branches of one type each, never a type array, in the input and output schemas', () => {
    const withNulls = z.strictObject({
      companyId: z.number().int().positive(),
      tag: z.string().nullable().describe('A tag, or null for none'),
      note: z.string().nullable().optional(),
      level: z.enum(['Device', 'Connection']).nullable(),
    });
    const tool = defineTool({ ...valid, inputSchema: withNulls, outputSchema: z.object({ tag: z.string().nullable() }), handler: () => ({ tag: null }) });
    const input = JSON.parse(tool.inputJsonSchema) as { properties: Record<string, unknown> };
    expect(input.properties.tag).toEqual({ anyOf: [{ type: 'string', description: 'A tag, or null for none' }, { type: 'null' }] });
    expect(input.properties.note).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
    expect(JSON.parse(tool.outputJsonSchema)).toMatchObject({ properties: { tag: { anyOf: [{ type: 'string' }, { type: 'null' }] } } });
    expect(`${tool.inputJsonSchema}${tool.outputJsonSchema}`).not.toMatch(/"type":\[/);
  });

  it.each([
    ['', 'a tool: name must be 1 to 64'],
    ['has space', 'tool "has space": name must be 1 to 64'],
    ['x'.repeat(65), 'name must be 1 to 64'],
    ['dot.ted', 'tool "dot.ted": name must'],
  ])('refuses the name %j', (name, message) => {
    expect(refusal({ name })).toContain(message);
  });

  it('accepts a 64-character name of letters, digits, _ and -', () => {
    expect(defineTool({ ...valid, name: `A-${'b_9'.repeat(20)}cd` }).name).toHaveLength(64);
  });

  it.each([
    ['a string schema', z.string()],
    ['an array schema', z.array(z.number())],
    ['a union of objects', z.union([z.object({ a: z.number() }), z.object({ b: z.number() })])],
  ])('refuses %s as input schema, naming the tool and the field', (_what, inputSchema) => {
    expect(refusal({ inputSchema })).toBe('tool "list_webhooks": inputSchema must be a zod object schema (z.object or z.strictObject) or jsonSchema(...)');
  });

  it('refuses an input schema that JSON Schema cannot express', () => {
    expect(refusal({ inputSchema: z.object({ when: z.date() }) })).toMatch(/^tool "list_webhooks": inputSchema cannot be published as JSON Schema/);
  });

  it('refuses an output schema whose patterns the gateway cannot check in linear time', () => {
    // zod's hostname pattern has a lookahead, which the gateway's linear-time checks have not.
    expect(refusal({ outputSchema: z.object({ host: z.hostname() }) })).toMatch(
      /^tool "list_webhooks": outputSchema cannot be checked by the gateway \(the schema does not compile \(.*unsupported Perl syntax/,
    );
    expect(refusal({ outputSchema: z.object({ host: z.string().regex(/^(?!-)[a-z-]+$/) }) })).toMatch(/outputSchema cannot be checked by the gateway/);
  });

  it('refuses a companyId argument that is not a number, since the permission is checked at it', () => {
    expect(refusal({ inputSchema: z.object({ companyId: z.string() }) })).toBe(
      'tool "list_webhooks": inputSchema.companyId must be a number: the permission is checked at it',
    );
  });

  it.each(['device-overview', 'Device:View', 'device overview:view', ':view', 'view:', ''])('refuses the permission %j', (requiresPermission) => {
    expect(refusal({ requiresPermission })).toBe('tool "list_webhooks": requiresPermission must be shaped area:action, such as device-overview:view');
  });

  it('accepts permissions of more than two parts, and none at all', () => {
    expect(defineTool({ ...valid, requiresPermission: 'iam:profile:view' }).requiresPermission).toBe('iam:profile:view');
    expect(defineTool({ ...valid, requiresPermission: undefined }).requiresPermission).toBeUndefined();
  });

  it('refuses unknown annotations and non-boolean hints', () => {
    expect(refusal({ annotations: { openWorld: true } })).toContain('annotations.openWorld is not one of readOnlyHint, destructiveHint, idempotentHint');
    expect(refusal({ annotations: { readOnlyHint: 'yes' } })).toContain('annotations.readOnlyHint must be true or false');
  });

  it("takes a time limit of its own, from 100 ms to the gateway's ceiling of 600 000 ms, and none by default", () => {
    expect(defineTool({ ...valid, timeoutMs: 5_000 }).timeoutMs).toBe(5_000);
    expect(defineTool({ ...valid, timeoutMs: 600_000 }).timeoutMs).toBe(600_000);
    expect(defineTool(valid).timeoutMs).toBeUndefined();
  });

  it.each([0, 99, 600_001, 1.5, Number.NaN, '5000'])('refuses the time limit %j, naming the field', (timeoutMs) => {
    expect(refusal({ timeoutMs })).toBe('tool "list_webhooks": timeoutMs must be a whole number of milliseconds from 100 to 600000');
  });

  it('refuses a missing title, description or handler', () => {
    expect(refusal({ title: ' ' })).toContain('title must be a non-empty string');
    expect(refusal({ description: '' })).toContain('description must say, for the agent, what the tool does');
    expect(refusal({ handler: undefined })).toContain('handler must be a function');
  });

  it("takes MCP's execution.taskSupport, forbidden by default, and lists it as the contract's TaskSupport", () => {
    const tools = [
      defineTool(valid),
      ...(['forbidden', 'optional', 'required'] as const).map((taskSupport, index) =>
        defineTool({ ...valid, name: `tool_${index}`, execution: { taskSupport } }),
      ),
    ];
    expect(tools.map((tool) => tool.taskSupport)).toEqual(['forbidden', 'forbidden', 'optional', 'required']);
    const runner = createToolRunner({
      tools,
      checkCaller: () => Promise.reject(new Error('no call in this test')),
      logger: createLogger({ name: 'listing-test', level: 'silent' }),
      apiBaseUrl: 'http://127.0.0.1:9',
      platformApiBaseUrls: new Map(),
      httpTimeoutMs: 1_000,
    });
    expect(runner.listing.map((tool) => tool.taskSupport)).toEqual([
      'TASK_SUPPORT_FORBIDDEN',
      'TASK_SUPPORT_FORBIDDEN',
      'TASK_SUPPORT_OPTIONAL',
      'TASK_SUPPORT_REQUIRED',
    ]);
  });

  it.each(['sometimes', 'OPTIONAL', 'TASK_SUPPORT_OPTIONAL', true, null])(
    'refuses the task support %j with a TypeError naming execution.taskSupport',
    (taskSupport) => {
      expect(() => defineTool({ ...valid, execution: { taskSupport } as never })).toThrow(TypeError);
      expect(refusal({ execution: { taskSupport } })).toBe('tool "list_webhooks": execution.taskSupport must be one of "forbidden", "optional", "required"');
    },
  );

  it('refuses an execution that is not an object or holds another key, naming it', () => {
    expect(refusal({ execution: 'optional' })).toContain('execution must be an object');
    expect(refusal({ execution: { taskSupport: 'optional', ttl: 5 } })).toContain('execution.ttl is not a key of execution');
  });

  it('takes where a task starts, at the handler by default, and refuses any other value naming execution.taskStart', () => {
    expect(defineTool(valid).taskStart).toBe('handler');
    expect(defineTool({ ...valid, execution: { taskSupport: 'required', taskStart: 'explicit' } }).taskStart).toBe('explicit');
    expect(refusal({ execution: { taskSupport: 'optional', taskStart: 'later' } })).toBe(
      'tool "list_webhooks": execution.taskStart must be one of "handler", "explicit"',
    );
  });
});
