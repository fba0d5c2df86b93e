import { thrownBy } from '@platform/devtools/thrown';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkedForm, type CheckedForm, type FormSchema } from './elicitation-form.ts';

/** The TypeError `checkedForm` throws for `spec` (given loosely, as a JSON Schema from elsewhere could be). */
const refusal = (spec: unknown): string => thrownBy(() => checkedForm(spec as FormSchema), TypeError).message;

/** The problem `form` finds in `content`; fails the test when it finds none. */
function problemOf(form: CheckedForm<unknown>, content: unknown): string {
  const checked = form.check(content);
  if (checked.ok) throw new Error(`expected ${JSON.stringify(content)} not to fit the form`);
  return checked.problem;
}

const form = (properties: Record<string, Record<string, unknown>>, required?: string[]): FormSchema => ({
  type: 'object',
  properties,
  ...(required && { required }),
});

describe('checkedForm accepts the forms MCP allows', () => {
  it.each([
    ['a string with a format, lengths and a default', { type: 'string', format: 'email', minLength: 3, maxLength: 120, default: 'a@b.example' }],
    ['a string with a title and a description', { type: 'string', title: 'Name', description: 'As on your passport' }],
    ['an enum', { type: 'string', enum: ['low', 'high'], default: 'low' }],
    ['an enum with enumNames', { type: 'string', enum: ['eu', 'us'], enumNames: ['Europe', 'United States'] }],
    [
      'titled choices (oneOf)',
      {
        type: 'string',
        oneOf: [
          { const: 'eu', title: 'Europe' },
          { const: 'us', title: 'United States' },
        ],
      },
    ],
    ['a number with bounds', { type: 'number', minimum: 0.5, maximum: 9.5, default: 1 }],
    ['an integer with bounds', { type: 'integer', minimum: 1, maximum: 10 }],
    ['a boolean', { type: 'boolean', default: true }],
    ['a multi-select of enum items', { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['a', 'b', 'c'] }, default: ['a'] }],
    [
      'a multi-select of titled anyOf items',
      {
        type: 'array',
        items: {
          anyOf: [
            { const: 'a', title: 'Alpha' },
            { const: 'b', title: 'Beta' },
          ],
        },
      },
    ],
  ])('accepts %s and keeps the schema as given', (_case, field) => {
    const spec = form({ field }, ['field']);
    expect(checkedForm(spec).schema).toEqual(spec);
  });

  it('accepts a $schema beside the form', () => {
    const spec = { $schema: 'https://json-schema.org/draft/2020-12/schema', ...form({ a: { type: 'string' } }) };
    expect(checkedForm(spec as FormSchema).schema).toEqual(spec);
  });

  it('accepts property names of letters, digits, "_", "." and "-" up to 64 characters', () => {
    const name = `a.b-c_${'d'.repeat(58)}`;
    expect(checkedForm(form({ [name]: { type: 'string' } })).schema.properties).toHaveProperty([name]);
  });
});

describe('checkedForm refuses what MCP does not allow, naming the path', () => {
  it('refuses a nested object property', () => {
    expect(refusal(form({ address: { type: 'object', properties: { city: { type: 'string' } } } }))).toBe(
      'elicit: requestedSchema.properties.address is outside what MCP lets a form ask (Invalid input)',
    );
  });

  it('refuses an array of numbers', () => {
    expect(refusal(form({ scores: { type: 'array', items: { type: 'number' } } }))).toMatch(/^elicit: requestedSchema\.properties\.scores is outside/);
  });

  it('refuses the pattern keyword', () => {
    expect(refusal(form({ code: { type: 'string', pattern: '^[0-9]+$' } }))).toBe(
      'elicit: requestedSchema.properties.code is outside what MCP lets a form ask (Unrecognized key: "pattern")',
    );
  });

  it('refuses a property name with a space', () => {
    expect(refusal(form({ 'first name': { type: 'string' } }))).toMatch(/^elicit: requestedSchema\.properties\.first name is outside/);
  });

  it('refuses a property name longer than 64 characters', () => {
    expect(refusal(form({ ['a'.repeat(65)]: { type: 'string' } }))).toMatch(/^elicit: requestedSchema\.properties\.a{65} is outside/);
  });

  it('refuses required naming a property the form does not have', () => {
    expect(refusal(form({ name: { type: 'string' } }, ['name', 'age']))).toBe('elicit: requestedSchema.required names age, which is not one of its properties');
  });

  it('refuses a form that is not an object, and keys beside type, properties and required', () => {
    expect(refusal({ type: 'array', properties: {} })).toMatch(/^elicit: requestedSchema\.type is outside/);
    expect(refusal({ ...form({ a: { type: 'string' } }), additionalProperties: false })).toMatch(
      /^elicit: requestedSchema is outside .*Unrecognized key: "additionalProperties"/,
    );
  });

  it('refuses an unknown format, an empty enum, and a null field', () => {
    expect(refusal(form({ a: { type: 'string', format: 'ipv4' } }))).toMatch(/^elicit: requestedSchema\.properties\.a is outside/);
    expect(refusal(form({ a: { type: 'string', enum: [] } }))).toMatch(/^elicit: requestedSchema\.properties\.a is outside/);
    expect(refusal(form({ a: { type: 'null' } }))).toMatch(/^elicit: requestedSchema\.properties\.a is outside/);
  });
});

describe('checkedForm with a zod object', () => {
  const zodForm = z.object({
    name: z.string().min(2).max(40).describe('Your full name'),
    age: z.number().int().min(0).max(150).optional(),
    height: z.number().min(0.3).max(3),
    subscribe: z.boolean().default(false),
    plan: z.enum(['free', 'pro']),
  });

  it('converts it to the form MCP takes: type, properties, required, nothing else', () => {
    expect(checkedForm(zodForm).schema).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 40, description: 'Your full name' },
        age: { type: 'integer', minimum: 0, maximum: 150 },
        height: { type: 'number', minimum: 0.3, maximum: 3 },
        subscribe: { type: 'boolean', default: false },
        plan: { type: 'string', enum: ['free', 'pro'] },
      },
      required: ['name', 'height', 'plan'],
    });
  });

  it('leaves required out when every field is optional', () => {
    expect(checkedForm(z.object({ note: z.string().optional() })).schema).toEqual({ type: 'object', properties: { note: { type: 'string' } } });
  });

  it('parses an answer into the typed value, defaults applied', () => {
    const checked = checkedForm<z.output<typeof zodForm>>(zodForm).check({ name: 'Ada', height: 1.7, plan: 'pro' });
    expect(checked).toEqual({ ok: true, value: { name: 'Ada', height: 1.7, plan: 'pro', subscribe: false } });
  });

  it("refuses an answer by the form's rules first, then by zod's own", () => {
    const checked = checkedForm(zodForm);
    expect(problemOf(checked, { name: 'Ada', height: 1.7, plan: 'pro', extra: 1 })).toBe('extra is not a field of the form');
    expect(problemOf(checked, { name: 'A', height: 1.7, plan: 'pro' })).toBe('name must be at least 2 characters');
    expect(problemOf(checked, { name: 'Ada', height: 1.7, plan: 'enterprise' })).toBe('plan must be one of the choices');
  });

  it('refuses a zod object a form cannot express, naming the field', () => {
    expect(() => checkedForm(z.object({ address: z.object({ city: z.string() }) }))).toThrow(
      /^elicit: requestedSchema\.properties\.address is outside what MCP lets a form ask/,
    );
    expect(() => checkedForm(z.object({ when: z.date() }))).toThrow();
  });

  it('asks a zod email field as a string of format email', () => {
    // z.email() is how a zod form asks for an address; zod writes it with a pattern beside the format.
    const checked = checkedForm(z.object({ email: z.email() }));
    expect(checked.schema.properties.email).toMatchObject({ type: 'string', format: 'email' });
    expect(checked.check({ email: 'ada@example.com' })).toEqual({ ok: true, value: { email: 'ada@example.com' } });
  });
});

describe('checkedForm checks an answer', () => {
  const contact = checkedForm(
    form(
      {
        name: { type: 'string', minLength: 2, maxLength: 5 },
        email: { type: 'string', format: 'email' },
        site: { type: 'string', format: 'uri' },
        born: { type: 'string', format: 'date' },
        at: { type: 'string', format: 'date-time' },
        plan: { type: 'string', enum: ['free', 'pro'] },
        region: {
          type: 'string',
          oneOf: [
            { const: 'eu', title: 'Europe' },
            { const: 'us', title: 'US' },
          ],
        },
        count: { type: 'integer', minimum: 1, maximum: 3 },
        ratio: { type: 'number', minimum: 0, maximum: 1 },
        agree: { type: 'boolean' },
        tags: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['a', 'b', 'c'] } },
        picks: {
          type: 'array',
          items: {
            anyOf: [
              { const: 'x', title: 'X' },
              { const: 'y', title: 'Y' },
            ],
          },
        },
      },
      ['name'],
    ),
  );

  it('admits an answer that fits, as it is', () => {
    const answer = {
      name: 'Ada',
      email: 'ada@example.com',
      site: 'https://ada.example/',
      born: '1815-12-10',
      at: '2026-03-01T10:00:00+01:00',
      plan: 'pro',
      region: 'eu',
      count: 3,
      ratio: 0.5,
      agree: false,
      tags: ['a', 'c'],
      picks: ['y'],
    };
    expect(contact.check(answer)).toEqual({ ok: true, value: answer });
  });

  it.each([
    ['a required field missing', {}, 'name is required'],
    ['a field the form does not have', { name: 'Ada', nickname: 'A' }, 'nickname is not a field of the form'],
    ['a number where a string is asked', { name: 5 }, 'name must be a string'],
    ['a string where a number is asked', { name: 'Ada', count: '2' }, 'count must be a number'],
    ['a fraction where an integer is asked', { name: 'Ada', count: 1.5 }, 'count must be an integer'],
    ['a string where a boolean is asked', { name: 'Ada', agree: 'yes' }, 'agree must be true or false'],
    ['an enum value outside the choices', { name: 'Ada', plan: 'enterprise' }, 'plan must be one of the choices'],
    ['a oneOf value outside the choices', { name: 'Ada', region: 'asia' }, 'region must be one of the choices'],
    ['a string shorter than minLength', { name: 'A' }, 'name must be at least 2 characters'],
    ['a string longer than maxLength', { name: 'Adaline' }, 'name must be at most 5 characters'],
    ['a number below the minimum', { name: 'Ada', count: 0 }, 'count must be at least 1'],
    ['a number above the maximum', { name: 'Ada', ratio: 1.5 }, 'ratio must be at most 1'],
    ['a number that is not finite', { name: 'Ada', ratio: Number.NaN }, 'ratio must be a number'],
    ['an email without @', { name: 'Ada', email: 'ada.example.com' }, 'email must be a email'],
    ['an email with a space', { name: 'Ada', email: 'a da@example.com' }, 'email must be a email'],
    ['a uri that is not one', { name: 'Ada', site: 'ada dot example' }, 'site must be a uri'],
    ['a date in another shape', { name: 'Ada', born: '10-12-1815' }, 'born must be a date'],
    ['a month 13', { name: 'Ada', born: '1815-13-10' }, 'born must be a date'],
    ['a date-time without an offset', { name: 'Ada', at: '2026-03-01T10:00:00' }, 'at must be a date-time'],
    ['a date where a date-time is asked', { name: 'Ada', at: '2026-03-01' }, 'at must be a date-time'],
    ['a multi-select with a choice outside', { name: 'Ada', tags: ['a', 'z'] }, 'tags must hold only the choices'],
    ['a multi-select of anyOf with a choice outside', { name: 'Ada', picks: ['z'] }, 'picks must hold only the choices'],
    ['a multi-select that is not a list of strings', { name: 'Ada', tags: 'a' }, 'tags must be a list of choices'],
    ['a multi-select below minItems', { name: 'Ada', tags: [] }, 'tags must hold at least 1 choices'],
    ['a multi-select above maxItems', { name: 'Ada', tags: ['a', 'b', 'c'] }, 'tags must hold at most 2 choices'],
  ])('refuses %s', (_case, content, problem) => {
    expect(problemOf(contact, content)).toBe(problem);
  });

  it.each(['2023-02-29', '2026-02-30', '2026-04-31'])('refuses the date %s, which no calendar has', (born) => {
    expect(problemOf(contact, { name: 'Ada', born })).toBe('born must be a date');
  });

  it.each([null, 'Ada', ['Ada']])('refuses content %j that is not an object', (content) => {
    expect(problemOf(contact, content)).toBe('content must be an object');
  });

  it('requires a required field named like a member of every object (constructor, valueOf)', () => {
    const spec = form({ constructor: { type: 'string' }, valueOf: { type: 'number' } }, ['constructor', 'valueOf']);
    expect(problemOf(checkedForm(spec), {})).toBe('constructor is required');
    expect(checkedForm(spec).check({ constructor: 'c', valueOf: 1 })).toEqual({ ok: true, value: { constructor: 'c', valueOf: 1 } });
  });

  it('does not take a key of the prototype for a field of the form', () => {
    expect(problemOf(contact, { name: 'Ada', toString: 'x' })).toBe('toString is not a field of the form');
  });
});
