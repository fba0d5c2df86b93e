import { describe, expect, it } from 'vitest';
import { isJsonSchemaInput, jsonSchema } from './json-schema-input.ts';

/** The problems of a value the schema refuses; fails the test when it admits it. */
function problemsOf(input: ReturnType<typeof jsonSchema>, value: unknown): readonly string[] {
  const checked = input.check(value);
  if (checked.ok) throw new Error(`expected ${JSON.stringify(value)} to be refused`);
  return checked.problems;
}

describe('jsonSchema dialects', () => {
  // unevaluatedProperties exists from 2019-09; draft-07 ignores it as an unknown keyword (strict: false).
  const withUnevaluated = (dialect: string | undefined) => ({
    ...(dialect !== undefined && { $schema: dialect }),
    type: 'object',
    properties: { a: { type: 'string' } },
    unevaluatedProperties: false,
  });

  it('checks by 2020-12 when the schema names no dialect', () => {
    const input = jsonSchema({ type: 'object', properties: { tags: { type: 'array', prefixItems: [{ type: 'string' }], items: false } } });
    expect(input.check({ tags: ['a'] }).ok).toBe(true);
    expect(problemsOf(input, { tags: ['a', 'b'] })).toEqual(['tags: must NOT have more than 1 items']);
    expect(problemsOf(jsonSchema(withUnevaluated(undefined)), { b: 1 })).toEqual(['arguments: must NOT have unevaluated properties']);
  });

  it('checks by 2020-12 when the schema names it, with or without the trailing #', () => {
    for (const dialect of ['https://json-schema.org/draft/2020-12/schema', 'https://json-schema.org/draft/2020-12/schema#']) {
      expect(problemsOf(jsonSchema(withUnevaluated(dialect)), { b: 1 })).toEqual(['arguments: must NOT have unevaluated properties']);
    }
  });

  it('checks by draft-07 when the schema names it with its usual #: tuple items, definitions, and no unevaluatedProperties', () => {
    const input = jsonSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { count: { type: 'integer' } },
      properties: { count: { $ref: '#/definitions/count' }, pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false } },
    });
    expect(input.check({ count: 2, pair: ['a', 1] }).ok).toBe(true);
    expect(problemsOf(input, { count: 1.5 })).toEqual(['count: must be integer']);
    expect(problemsOf(input, { pair: ['a', 1, 2] })).toEqual(['pair: must NOT have more than 2 items']);
    expect(jsonSchema(withUnevaluated('http://json-schema.org/draft-07/schema#')).check({ b: 1 }).ok).toBe(true);
  });

  it('checks by 2019-09 when the schema names it: dependentRequired and unevaluatedProperties', () => {
    const input = jsonSchema({
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      properties: { card: { type: 'string' }, expiry: { type: 'string' } },
      dependentRequired: { card: ['expiry'] },
      unevaluatedProperties: false,
    });
    expect(input.check({ card: '4111', expiry: '12/30' }).ok).toBe(true);
    expect(problemsOf(input, { card: '4111' })).toEqual(['arguments: must have property expiry when property card is present']);
    expect(problemsOf(input, { other: 1 })).toEqual(['arguments: must NOT have unevaluated properties']);
  });

  it.each(['http://json-schema.org/draft-04/schema#', 'https://json-schema.org/draft/2021-01/schema', 'not a dialect', 7])(
    'refuses the unknown $schema %j with a TypeError naming it',
    (dialect) => {
      expect(() => jsonSchema({ $schema: dialect, type: 'object' })).toThrow(TypeError);
      expect(() => jsonSchema({ $schema: dialect, type: 'object' })).toThrow(`$schema ${JSON.stringify(dialect)} is not a dialect the SDK checks`);
    },
  );
});

describe('jsonSchema checks', () => {
  const person = jsonSchema({
    type: 'object',
    properties: {
      phone: { type: 'string' },
      email: { type: 'string', format: 'email' },
      address: { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string' } }, required: ['zip'] },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['phone'],
    additionalProperties: false,
  });

  it('admits a value the schema describes, as it is', () => {
    const value = { phone: '+31 20 555 0100', email: 'ada@example.com', address: { city: 'Utrecht', zip: '3511' }, tags: ['a'] };
    expect(person.check(value)).toEqual({ ok: true, value });
  });

  it('names the nested field at fault', () => {
    expect(problemsOf(person, { phone: 'x', address: { city: 5, zip: '1' } })).toEqual(['address.city: must be string']);
    expect(problemsOf(person, { phone: 'x', tags: ['a', 3] })).toEqual(['tags.1: must be string']);
  });

  it('names a missing required field, at the top and nested', () => {
    expect(problemsOf(person, {})).toEqual(['phone: is required']);
    expect(problemsOf(person, { phone: 'x', address: { city: 'Utrecht' } })).toEqual(['address.zip: is required']);
  });

  it('refuses a value that is not an object at the arguments themselves', () => {
    expect(problemsOf(person, null)).toEqual(['arguments: must be object']);
    expect(problemsOf(person, [])).toEqual(['arguments: must be object']);
  });

  it('checks formats: email', () => {
    expect(problemsOf(person, { phone: 'x', email: 'not an address' })).toEqual(['email: must match format "email"']);
  });

  it('checks date-time, uri and uuid formats too', () => {
    const formats = jsonSchema({
      type: 'object',
      properties: { at: { type: 'string', format: 'date-time' }, link: { type: 'string', format: 'uri' }, id: { type: 'string', format: 'uuid' } },
    });
    expect(formats.check({ at: '2026-03-01T10:00:00Z', link: 'https://a.example/', id: '6f1c1a7e-2f7a-4f53-9a43-0c4d3b8f0a11' }).ok).toBe(true);
    expect(problemsOf(formats, { at: 'yesterday' })).toEqual(['at: must match format "date-time"']);
    expect(problemsOf(formats, { link: 'no link' })).toEqual(['link: must match format "uri"']);
    expect(problemsOf(formats, { id: '42' })).toEqual(['id: must match format "uuid"']);
  });

  it('refuses a property additionalProperties: false does not allow', () => {
    expect(person.check({ phone: 'x', fax: '1' }).ok).toBe(false);
  });

  it('names the property additionalProperties: false does not allow', () => {
    // The problem says where and why, like `phone: is required`: the agent must learn which argument to drop.
    expect(problemsOf(person, { phone: 'x', fax: '1' })).toEqual([expect.stringMatching(/\bfax\b/)]);
  });

  it('follows $ref into $defs, and to an $anchor', () => {
    const input = jsonSchema({
      type: 'object',
      $defs: { city: { $anchor: 'city', type: 'string', minLength: 2 }, zip: { type: 'string', pattern: '^[0-9]{4}$' } },
      properties: { city: { $ref: '#city' }, zip: { $ref: '#/$defs/zip' } },
    });
    expect(input.check({ city: 'Ede', zip: '6711' }).ok).toBe(true);
    expect(problemsOf(input, { city: 'E' })).toEqual(['city: must NOT have fewer than 2 characters']);
    expect(problemsOf(input, { zip: 'abcd' })).toEqual(['zip: must match pattern "^[0-9]{4}$"']);
  });

  it('checks allOf and anyOf', () => {
    const input = jsonSchema({
      type: 'object',
      allOf: [{ required: ['id'] }, { properties: { id: { type: 'integer', minimum: 1 } } }],
      properties: { ref: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
    });
    expect(input.check({ id: 1, ref: 'a' }).ok).toBe(true);
    expect(input.check({ id: 1, ref: 2 }).ok).toBe(true);
    expect(problemsOf(input, { ref: 'a' })).toEqual(['id: is required']);
    expect(problemsOf(input, { id: 0 })).toEqual(['id: must be >= 1']);
    expect(problemsOf(input, { id: 1, ref: true })).toContain('ref: must match a schema in anyOf');
  });

  it('checks if/then/else', () => {
    const input = jsonSchema({
      type: 'object',
      properties: { kind: { enum: ['email', 'sms'] } },
      if: { properties: { kind: { const: 'email' } }, required: ['kind'] },
      then: { required: ['address'] },
      else: { required: ['phone'] },
    });
    expect(input.check({ kind: 'email', address: 'a@b.example' }).ok).toBe(true);
    expect(input.check({ kind: 'sms', phone: '1' }).ok).toBe(true);
    expect(problemsOf(input, { kind: 'email' })).toContain('address: is required');
    expect(problemsOf(input, { kind: 'sms' })).toContain('phone: is required');
  });

  it('allows keywords MCP adds (enumNames, x-mcp-header) without refusing the schema', () => {
    const input = jsonSchema({
      type: 'object',
      properties: { region: { type: 'string', enum: ['eu', 'us'], enumNames: ['Europe', 'United States'], 'x-mcp-header': 'Region' } },
    });
    expect(input.check({ region: 'eu' }).ok).toBe(true);
    expect(problemsOf(input, { region: 'asia' })).toEqual(['region: must be equal to one of the allowed values']);
  });
});

describe('jsonSchema publishing', () => {
  it('publishes the schema as given, deep-frozen', () => {
    const given = { type: 'object', properties: { a: { type: 'string', enum: ['x', 'y'] } }, required: ['a'] };
    const input = jsonSchema(given);
    expect(input.jsonSchema).toEqual(given);
    expect(Object.isFrozen(input)).toBe(true);
    expect(Object.isFrozen(input.jsonSchema)).toBe(true);
    expect(Object.isFrozen(input.jsonSchema.properties)).toBe(true);
    expect(Object.isFrozen((input.jsonSchema.properties as { a: { enum: string[] } }).a.enum)).toBe(true);
  });

  it('publishes and checks a copy: later changes to the given schema change neither', () => {
    const given: { type: string; properties: Record<string, { type: string }>; required: string[] } = {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
    };
    const input = jsonSchema(given);
    given.properties.a = { type: 'number' };
    given.properties.b = { type: 'string' };
    given.required.push('b');
    given.type = 'array';
    expect(input.jsonSchema).toEqual({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    expect(input.check({ a: 'text' }).ok).toBe(true);
    expect(problemsOf(input, { a: 1 })).toEqual(['a: must be string']);
    expect(Object.isFrozen(given)).toBe(false);
  });

  it('runs pattern and patternProperties in linear time: patterns that backtrack for seconds in JavaScript answer at once', () => {
    const hostile = jsonSchema({
      type: 'object',
      properties: { serial: { type: 'string', pattern: '^(a+)+$' }, site: { type: 'string', pattern: '^[0-9]{3}$' } },
      patternProperties: { '^(b|b)*$': { type: 'number' } },
    });
    // 30 characters: JavaScript's engine takes tens of seconds on each of these (the time doubles
    // with each one more), so a check that went back to it fails here instead of hanging the run.
    const started = performance.now();
    expect(hostile.check({ serial: `${'a'.repeat(30)}!` })).toEqual({ ok: false, problems: ['serial: must match pattern "^(a+)+$"'] });
    expect(hostile.check({ [`${'b'.repeat(30)}!`]: 'x' })).toEqual({ ok: true, value: { [`${'b'.repeat(30)}!`]: 'x' } });
    expect(performance.now() - started).toBeLessThan(3_000);
    // Each pattern of a schema is its own.
    expect(hostile.check({ serial: 'aaa', site: '123', bb: 2 }).ok).toBe(true);
    expect(hostile.check({ serial: '123', site: 'aaa' })).toEqual({ ok: false, problems: ['serial: must match pattern "^(a+)+$"'] });
    expect(hostile.check({ site: 'aaa' })).toEqual({ ok: false, problems: ['site: must match pattern "^[0-9]{3}$"'] });
    expect(hostile.check({ bbb: 'x' })).toEqual({ ok: false, problems: ['bbb: must be number'] });
  });

  it.each([
    ['a lookahead', '^(?=a)a$'],
    ['a backreference', '(a)\\1'],
  ])('throws TypeError for a pattern with %s, which linear-time matching has not', (_case, pattern) => {
    expect(() => jsonSchema({ type: 'object', properties: { a: { type: 'string', pattern } } })).toThrow(/^jsonSchema: the schema does not compile \(.*/);
  });

  it('compiles two schemas that carry the same $id (the same schema for two tools)', () => {
    const device = { $id: `https://schemas.example/device-${crypto.randomUUID()}`, type: 'object', properties: { serial: { type: 'string' } } };
    const first = jsonSchema(device);
    const second = jsonSchema(device);
    expect(first.check({ serial: 'S-1' }).ok).toBe(true);
    expect(second.check({ serial: 'S-1' }).ok).toBe(true);
  });

  it.each([
    ['an unknown type', { type: 'object', properties: { a: { type: 'nonsense' } } }],
    ['a $ref to nowhere', { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }],
    ['a bad pattern', { type: 'object', properties: { a: { type: 'string', pattern: '(' } } }],
  ])('throws TypeError for a schema with %s', (_case, schema) => {
    expect(() => jsonSchema(schema)).toThrow(TypeError);
    expect(() => jsonSchema(schema)).toThrow(/^jsonSchema: the schema does not compile \(/);
  });

  it.each([
    ['null', null],
    ['an array', []],
    ['a string', 'object'],
  ])('throws TypeError for %s instead of a schema object', (_case, schema) => {
    expect(() => jsonSchema(schema as unknown as Record<string, unknown>)).toThrow(new TypeError('jsonSchema: the schema must be a JSON object'));
  });

  it('is known by isJsonSchemaInput, and a plain schema object is not', () => {
    expect(isJsonSchemaInput(jsonSchema({ type: 'object' }))).toBe(true);
    expect(isJsonSchemaInput({ type: 'object' })).toBe(false);
    expect(isJsonSchemaInput({ jsonSchema: {}, check: 'no' })).toBe(false);
    expect(isJsonSchemaInput(undefined)).toBe(false);
  });
});
