// The form of a question to the person (MCP `elicitation/create` in form mode): a flat object of
// primitive fields, as the MCP revision restricts it (strings with a length, a format or choices,
// numbers and integers with bounds, booleans, multiple choice of strings). Given as a zod object (the
// answer then comes back typed) or as that JSON Schema; refused, naming the field, when it is outside
// the subset; and each answer is checked against it before the tool sees it.
import { z } from 'zod';

/** A form's JSON Schema, as MCP sends it to the client. */
export interface FormSchema {
  /** Always `object`: a form is one object. */
  readonly type: 'object';
  /** The form's fields by name, each a JSON Schema of a primitive (string, number, boolean, enum). */
  readonly properties: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** The fields the person must fill in. */
  readonly required?: readonly string[];
}

/** A value a form field holds. */
export type FormValue = string | number | boolean | string[];

const titled = z.strictObject({ const: z.string(), title: z.string() });
const common = { title: z.string().max(256).optional(), description: z.string().max(2_048).optional() };
const field = z.union([
  z.strictObject({
    type: z.literal('string'),
    ...common,
    minLength: z.number().int().nonnegative().optional(),
    maxLength: z.number().int().nonnegative().optional(),
    format: z.enum(['email', 'uri', 'date', 'date-time']).optional(),
    default: z.string().optional(),
  }),
  z.strictObject({
    type: z.literal('string'),
    ...common,
    enum: z.array(z.string()).min(1).max(256),
    enumNames: z.array(z.string()).max(256).optional(),
    default: z.string().optional(),
  }),
  z.strictObject({ type: z.literal('string'), ...common, oneOf: z.array(titled).min(1).max(256), default: z.string().optional() }),
  z.strictObject({
    type: z.enum(['number', 'integer']),
    ...common,
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    default: z.number().optional(),
  }),
  z.strictObject({ type: z.literal('boolean'), ...common, default: z.boolean().optional() }),
  z.strictObject({
    type: z.literal('array'),
    ...common,
    minItems: z.number().int().nonnegative().optional(),
    maxItems: z.number().int().nonnegative().optional(),
    items: z.union([
      z.strictObject({ type: z.literal('string'), enum: z.array(z.string()).min(1).max(256) }),
      z.strictObject({ anyOf: z.array(titled).min(1).max(256) }),
    ]),
    default: z.array(z.string()).optional(),
  }),
]);
const formSchema = z.strictObject({
  $schema: z.string().optional(),
  type: z.literal('object'),
  properties: z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, "_", "." or "-"'), field),
  required: z.array(z.string()).optional(),
});

type Field = z.infer<typeof field>;

/** What a form is given as: a zod object of primitive fields, or the JSON Schema itself. */
export type FormSpec = z.ZodObject | FormSchema;

/** A checked form: its JSON Schema, and the check of an answer's content. */
export interface CheckedForm<T> {
  readonly schema: FormSchema;
  check(content: unknown): { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };
}

function refuse(error: z.ZodError): never {
  const [issue] = error.issues;
  const path = issue?.path.length ? `requestedSchema.${issue.path.map(String).join('.')}` : 'requestedSchema';
  throw new TypeError(`elicit: ${path} is outside what MCP lets a form ask (${issue?.message ?? 'not a flat object of primitive fields'})`);
}

/**
 * The form's JSON Schema from a zod object: what MCP takes (type, properties, required), nothing
 * else. zod writes the regular expression of its string formats (z.email(), z.iso.date()) beside the
 * format; MCP forms take the format alone, and the zod schema still checks the answer.
 */
function fromZod(schema: z.ZodObject): Record<string, unknown> {
  const { properties = {}, required } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'throw' }) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const formsOnly = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      if (property.format === undefined) return [name, property];
      const { pattern: _pattern, ...rest } = property;
      return [name, rest];
    }),
  );
  return { type: 'object', properties: formsOnly, ...(required && required.length > 0 && { required }) };
}

/** A day that exists: Date.parse rolls 2026-02-30 over into March, a round trip does not. */
function realDay(value: string): boolean {
  const [year = 0, month = 0, day = 0] = value.split('-').map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const formats: Readonly<Record<string, (value: string) => boolean>> = {
  email: (value) => /^[^\s@]+@[^\s@]+$/.test(value),
  uri: (value) => URL.canParse(value),
  date: (value) => z.iso.date().safeParse(value).success && realDay(value),
  'date-time': (value) => z.iso.datetime({ offset: true }).safeParse(value).success,
};

/** Why `value` does not fit `spec`; undefined when it does. */
function fieldProblem(spec: Field, value: unknown): string | undefined {
  switch (spec.type) {
    case 'string': {
      if (typeof value !== 'string') return 'must be a string';
      if ('enum' in spec && !spec.enum.includes(value)) return 'must be one of the choices';
      if ('oneOf' in spec && !spec.oneOf.some((choice) => choice.const === value)) return 'must be one of the choices';
      if ('minLength' in spec && spec.minLength !== undefined && value.length < spec.minLength) return `must be at least ${spec.minLength} characters`;
      if ('maxLength' in spec && spec.maxLength !== undefined && value.length > spec.maxLength) return `must be at most ${spec.maxLength} characters`;
      if ('format' in spec && spec.format !== undefined && !formats[spec.format]?.(value)) return `must be a ${spec.format}`;
      return undefined;
    }
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (spec.type === 'integer' && !Number.isInteger(value)) return 'must be an integer';
      if (spec.minimum !== undefined && value < spec.minimum) return `must be at least ${spec.minimum}`;
      if (spec.maximum !== undefined && value > spec.maximum) return `must be at most ${spec.maximum}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'array': {
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return 'must be a list of choices';
      const allowed = 'enum' in spec.items ? spec.items.enum : spec.items.anyOf.map((choice) => choice.const);
      if (!value.every((item) => allowed.includes(item))) return 'must hold only the choices';
      if (spec.minItems !== undefined && value.length < spec.minItems) return `must hold at least ${spec.minItems} choices`;
      if (spec.maxItems !== undefined && value.length > spec.maxItems) return `must hold at most ${spec.maxItems} choices`;
      return undefined;
    }
  }
}

/** Checks content against a JSON form: known fields only, the required ones present, each fitting its field. */
function checkAgainst(parsed: z.infer<typeof formSchema>, content: unknown): string | undefined {
  if (content === null || typeof content !== 'object' || Array.isArray(content)) return 'content must be an object';
  const given = content as Record<string, unknown>;
  for (const name of parsed.required ?? []) if (!Object.hasOwn(given, name) || given[name] === undefined) return `${name} is required`;
  for (const [name, value] of Object.entries(given)) {
    const spec = Object.hasOwn(parsed.properties, name) ? parsed.properties[name] : undefined;
    if (spec === undefined) return `${name} is not a field of the form`;
    const problem = fieldProblem(spec, value);
    if (problem !== undefined) return `${name} ${problem}`;
  }
  return undefined;
}

/** The form of `spec`, checked; throws TypeError naming the field when MCP does not allow it. */
export function checkedForm<T>(spec: FormSpec): CheckedForm<T> {
  const json = spec instanceof z.ZodObject ? fromZod(spec) : spec;
  const parsed = formSchema.safeParse(json);
  if (!parsed.success) refuse(parsed.error);
  for (const name of parsed.data.required ?? []) {
    if (!Object.hasOwn(parsed.data.properties, name)) throw new TypeError(`elicit: requestedSchema.required names ${name}, which is not one of its properties`);
  }
  const schema = json as FormSchema;
  if (spec instanceof z.ZodObject) {
    return {
      schema,
      check(content) {
        // The JSON form's own rules first, so a zod schema cannot accept what the form did not offer.
        const problem = checkAgainst(parsed.data, content);
        if (problem !== undefined) return { ok: false, problem };
        const checked = spec.safeParse(content);
        return checked.success ? { ok: true, value: checked.data as T } : { ok: false, problem: checked.error.issues[0]?.message ?? 'does not fit the form' };
      },
    };
  }
  return {
    schema,
    check(content) {
      const problem = checkAgainst(parsed.data, content);
      return problem === undefined ? { ok: true, value: content as T } : { ok: false, problem };
    },
  };
}
