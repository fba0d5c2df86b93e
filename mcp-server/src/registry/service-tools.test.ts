import type { Tool__Output } from '@platform/proto';
import { describe, expect, it } from 'vitest';
import { unsafeCharacterCases } from '@platform/devtools/unsafe-text';
import { serviceTools, toolLimits, ToolProblems } from './service-tools.ts';

const inputSchema = { type: 'object', properties: { companyId: { type: 'integer', minimum: 1 } }, required: ['companyId'], additionalProperties: false };

function published(overrides: Partial<Tool__Output> = {}): Tool__Output {
  return {
    name: 'list_webhooks',
    title: 'List webhooks',
    description: "A company's webhook configurations.",
    inputSchemaJson: JSON.stringify(inputSchema),
    outputSchemaJson: '',
    requiresPermission: 'device-overview:view',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    timeoutMs: 0,
    taskSupport: 'TASK_SUPPORT_FORBIDDEN',
    ...overrides,
  };
}

const problemsOf = (tools: Tool__Output[]): readonly string[] => {
  try {
    serviceTools(tools);
  } catch (error) {
    if (error instanceof ToolProblems) return error.problems;
    throw error;
  }
  return [];
};

describe('serviceTools', () => {
  it('keeps every field as published, the schema parsed but not transformed', () => {
    const [tool] = serviceTools([published({ outputSchemaJson: '{"type":"object","properties":{"count":{"type":"number"}}}' })]);

    expect(tool?.definition).toEqual({
      name: 'list_webhooks',
      title: 'List webhooks',
      description: "A company's webhook configurations.",
      inputSchema,
      outputSchema: { type: 'object', properties: { count: { type: 'number' } } },
      requiresPermission: 'device-overview:view',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    });
  });

  it('leaves title, output schema and permission undefined when the service sends them empty', () => {
    const [tool] = serviceTools([published({ title: '', outputSchemaJson: '', requiresPermission: '' })]);

    expect(tool?.definition.title).toBeUndefined();
    expect(tool?.definition.outputSchema).toBeUndefined();
    expect(tool?.definition.requiresPermission).toBeUndefined();
  });

  it('freezes the definition and its schema to the last level', () => {
    const [tool] = serviceTools([published()]);
    const properties = tool?.definition.inputSchema.properties as Record<string, object>;

    expect(Object.isFrozen(tool?.definition)).toBe(true);
    expect(Object.isFrozen(tool?.definition.inputSchema)).toBe(true);
    expect(Object.isFrozen(properties.companyId)).toBe(true);
  });

  it('gives equal fingerprints to equal tools and different ones when anything a client sees differs', () => {
    const [a] = serviceTools([published()]);
    const [b] = serviceTools([published()]);
    const [c] = serviceTools([published({ description: 'Another text.' })]);
    const [d] = serviceTools([published({ destructiveHint: true })]);

    expect(a?.fingerprint).toBe(b?.fingerprint);
    expect(c?.fingerprint).not.toBe(a?.fingerprint);
    expect(d?.fingerprint).not.toBe(a?.fingerprint);
  });

  it.each([
    ['a name MCP clients refuse', published({ name: 'list webhooks' }), 'tool "list webhooks": name must be 1 to 64 letters'],
    ['a name longer than the SDK allows', published({ name: 'x'.repeat(65) }), `tool "${'x'.repeat(65)}": name must be 1 to 64 letters`],
    ['a dotted name', published({ name: 'webhooks.list' }), 'tool "webhooks.list": name must be'],
    ['no name', published({ name: '' }), 'a tool without a name: name must be'],
    ['an input schema that is not JSON', published({ inputSchemaJson: '{type: object}' }), 'tool "list_webhooks": input_schema_json is not JSON'],
    ['an input schema that is an array', published({ inputSchemaJson: '[]' }), 'input_schema_json must be a JSON object'],
    ['an input schema that is null', published({ inputSchemaJson: 'null' }), 'input_schema_json must be a JSON object'],
    ['an input schema of a string', published({ inputSchemaJson: '{"type":"string"}' }), 'input_schema_json must describe an object'],
    ['an output schema that is not an object', published({ outputSchemaJson: '"x"' }), 'output_schema_json must be a JSON object'],
    [
      'an output schema whose pattern has a lookahead (results are checked in linear time)',
      published({ outputSchemaJson: JSON.stringify({ type: 'object', properties: { id: { type: 'string', pattern: '^(?=w)\\w+$' } } }) }),
      'tool "list_webhooks": output_schema_json cannot be used to check results (the schema does not compile (',
    ],
    [
      'an output schema with a $ref to nowhere',
      published({ outputSchemaJson: JSON.stringify({ type: 'object', properties: { id: { $ref: '#/$defs/missing' } } }) }),
      'output_schema_json cannot be used to check results',
    ],
    [
      'an input schema with a $ref outside it',
      published({ inputSchemaJson: JSON.stringify({ type: 'object', properties: { id: { $ref: 'http://169.254.169.254/latest/schema.json' } } }) }),
      "input_schema_json has a $ref outside the schema; only references within it (#...) and JSON Schema's own dialects are published",
    ],
    [
      'an output schema with a relative $dynamicRef',
      published({ outputSchemaJson: JSON.stringify({ type: 'object', items: [{ $dynamicRef: 'other.json#node' }] }) }),
      'output_schema_json has a $dynamicRef outside the schema',
    ],
    [
      'an oversized schema',
      published({ inputSchemaJson: JSON.stringify({ type: 'object', description: 'x'.repeat(toolLimits.maxSchemaBytes) }) }),
      `input_schema_json is larger than ${toolLimits.maxSchemaBytes} bytes`,
    ],
    ['a schema nested too deep', published({ inputSchemaJson: `{"type":"object","x":${'['.repeat(100)}${']'.repeat(100)}}` }), 'nests deeper than 64 levels'],
    ['a permission of another shape', published({ requiresPermission: 'Manage Webhooks' }), 'requires_permission must look like area:action'],
    ['an oversized description', published({ description: 'x'.repeat(toolLimits.maxDescriptionLength + 1) }), 'description is longer than'],
  ])('refuses %s, naming the tool and the problem', (_case, tool, problem) => {
    expect(problemsOf([tool]).join('\n')).toContain(problem);
  });

  it.each([
    ['a $recursiveRef outside it', { type: 'object', properties: { a: { $recursiveRef: 'http://169.254.169.254/x' } } }, '$recursiveRef'],
    ['a $schema that is no dialect', { type: 'object', $schema: 'http://169.254.169.254/meta' }, '$schema'],
    ['a $ref inside a draft-07 dependency', { type: 'object', dependencies: { a: { $ref: 'http://evil.example/s' } } }, '$ref'],
  ])('refuses an input schema with %s', (_case, schema, keyword) => {
    expect(problemsOf([published({ inputSchemaJson: JSON.stringify(schema) })]).join('\n')).toContain(`input_schema_json has a ${keyword} outside the schema`);
  });

  it('takes references within the schema, keys named $ref that are a property, $ref as data, and the dialects', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { id: { type: 'string' } },
      properties: {
        id: { $ref: '#/$defs/id' },
        $ref: { type: 'string' },
        link: { type: 'object', default: { $ref: 'http://example.com/x' }, examples: [{ $ref: 'x' }], enum: [{ $ref: 'y' }], const: { $schema: 'z' } },
      },
      dependencies: { $ref: ['id'] },
    };
    expect(problemsOf([published({ inputSchemaJson: JSON.stringify(schema), outputSchemaJson: JSON.stringify(schema) })])).toEqual([]);
  });

  it('refuses a name used by two tools', () => {
    expect(problemsOf([published(), published({ description: 'again' })])).toEqual(['tool "list_webhooks": name is used by two tools of the service']);
  });

  it('refuses more tools than the gateway takes', () => {
    const many = Array.from({ length: toolLimits.maxTools + 1 }, (_unused, index) => published({ name: `tool_${index}` }));

    expect(problemsOf(many)).toEqual([`the service offers ${toolLimits.maxTools + 1} tools; the gateway takes at most ${toolLimits.maxTools}`]);
  });

  it('names every tool at fault, and says how many more when there are many', () => {
    const bad = Array.from({ length: 7 }, (_unused, index) => published({ name: `bad_${index}`, inputSchemaJson: 'nope' }));
    const error = (() => {
      try {
        serviceTools([published(), ...bad]);
      } catch (caught) {
        return caught as ToolProblems;
      }
      return undefined;
    })();

    expect(error?.problems).toHaveLength(7);
    expect(error?.message).toContain('tool "bad_0": input_schema_json is not JSON');
    expect(error?.message).toContain('and 2 more');
  });

  it('takes a service that offers no tools', () => {
    expect(serviceTools([])).toEqual([]);
  });
});

describe('serviceTools and the text-safety rule', () => {
  // The rule results are cleaned by (shown-text.ts): a title or description that would need cleaning is refused.
  it.each(unsafeCharacterCases)('refuses a title or a description holding %s', (_, character) => {
    expect(problemsOf([published({ title: `List${character}webhooks` })])).toEqual([
      'tool "list_webhooks": title contains control or bidirectional-override characters',
    ]);
    expect(problemsOf([published({ description: `A company's${character}webhooks.` })])).toEqual([
      'tool "list_webhooks": description contains control or bidirectional-override characters',
    ]);
  });

  it('keeps tab and line feed in a description', () => {
    expect(problemsOf([published({ description: 'Lists:\n\t- webhooks' })])).toEqual([]);
  });
});
