// A tool's input or output described by a JSON Schema as it is (an OpenAPI document's, a schema
// another tool already publishes) rather than by zod: published exactly as given, and every value
// checked by Ajv in the dialect the schema names (2020-12 when it names none; draft-07 and 2019-09
// too), with the formats of ajv-formats. The schema is compiled once, when the tool is defined.
import { Ajv as AjvDraft07, type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { linearRegExp } from './linear-regexp.ts';

/** A JSON Schema of a tool's input or output, ready for `defineTool`. */
export interface JsonSchemaInput<T = Record<string, unknown>> {
  /** The schema, published as given. */
  readonly jsonSchema: Readonly<Record<string, unknown>>;
  /** The value when the schema admits it; otherwise where and why not, `address.city: must be string`. */
  check(value: unknown): { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problems: readonly string[] };
}

const dialects = {
  'https://json-schema.org/draft/2020-12/schema': Ajv2020,
  'https://json-schema.org/draft/2019-09/schema': Ajv2019,
  'http://json-schema.org/draft-07/schema': AjvDraft07,
} as const;

// ajv-formats is CommonJS whose default export is the function itself.
const addFormats = addFormatsModule as unknown as (ajv: InstanceType<typeof Ajv2020 | typeof Ajv2019 | typeof AjvDraft07>) => void;

type DialectAjv = InstanceType<(typeof dialects)[keyof typeof dialects]>;

/**
 * Compiles JSON Schemas to checks, with an Ajv of its own per dialect (made on first use) that holds
 * every schema it compiled: the SDK keeps one for its tools' schemas; the gateway one per service
 * registration, so a registration's schemas go when it goes.
 */
export interface SchemaChecks {
  /** The check of `schema`, whose problems name the value's root `root`; throws TypeError when it does not compile. */
  compile(schema: Readonly<Record<string, unknown>>, root?: string): JsonSchemaInput<unknown>['check'];
}

export function createSchemaChecks(): SchemaChecks {
  const engines = new Map<string, DialectAjv>();
  const ajvFor = (dialect: keyof typeof dialects): DialectAjv => {
    let ajv = engines.get(dialect);
    if (!ajv) {
      // strict: false: MCP schemas carry keywords JSON Schema does not define (enumNames, x-mcp-header).
      // addUsedSchema: false: a schema's $id is not kept in the instance, so two tools (or two
      // services' copies) may publish the same schema with the same $id.
      // code.regExp: patterns run in linear time (linear-regexp.ts). logger: false: an unknown format is
      // ignored, as JSON Schema says, without a console line another app's schema could repeat at will.
      ajv = new dialects[dialect]({
        strict: false,
        allErrors: false,
        validateFormats: true,
        addUsedSchema: false,
        code: { regExp: linearRegExp },
        logger: false,
      });
      addFormats(ajv);
      engines.set(dialect, ajv);
    }
    return ajv;
  };
  return {
    compile(schema: Readonly<Record<string, unknown>>, root = 'arguments') {
      let validate: ValidateFunction;
      try {
        validate = ajvFor(dialectOf(schema)).compile(structuredClone(schema) as AnySchemaObject);
      } catch (error) {
        throw new TypeError(`the schema does not compile (${error instanceof Error ? error.message : String(error)})`, { cause: error });
      }
      return (value: unknown) => {
        if (validate(value)) return { ok: true as const, value };
        return { ok: false as const, problems: (validate.errors ?? []).map((error) => problemOf(error, root)) };
      };
    },
  };
}

/** The SDK's own: the schemas of the tools this process defines. */
const toolSchemas = createSchemaChecks();

function dialectOf(schema: Readonly<Record<string, unknown>>): keyof typeof dialects {
  const named = schema.$schema;
  if (named === undefined) return 'https://json-schema.org/draft/2020-12/schema';
  const normalized = typeof named === 'string' ? named.replace(/#$/, '') : '';
  if (normalized in dialects) return normalized as keyof typeof dialects;
  throw new TypeError(`jsonSchema: $schema ${JSON.stringify(named)} is not a dialect the SDK checks (2020-12, 2019-09 or draft-07)`);
}

function problemOf(error: ErrorObject, root: string): string {
  const path = error.instancePath === '' ? '' : error.instancePath.slice(1).replaceAll('/', '.');
  // Ajv names the property of these two in its params, not in the path.
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const named = error.keyword === 'required' ? params.missingProperty : error.keyword === 'additionalProperties' ? params.additionalProperty : undefined;
  const where = [path, named].filter((part) => part !== undefined && part !== '').join('.');
  const said = error.keyword === 'required' ? 'is required' : error.keyword === 'additionalProperties' ? 'is not allowed' : (error.message ?? 'is not allowed');
  return `${where === '' ? root : where}: ${said}`;
}

/**
 * A tool's input (or output) schema given as JSON Schema; `T` is what the handler receives (the
 * schema is the check, the type is the author's word for it). Throws TypeError when the schema
 * cannot be compiled.
 *
 * @example
 * ```ts
 * defineTool({ name: 'find_device', ..., inputSchema: jsonSchema<{ serial: string }>({ type: 'object', properties: { serial: { type: 'string' } }, required: ['serial'] }) });
 * ```
 */
export function jsonSchema<T = Record<string, unknown>>(schema: Record<string, unknown>): JsonSchemaInput<T> {
  if ((schema as unknown) === null || typeof schema !== 'object' || Array.isArray(schema)) throw new TypeError('jsonSchema: the schema must be a JSON object');
  const published = structuredClone(schema);
  let check: JsonSchemaInput<T>['check'];
  try {
    // The schema is the check; T is the author's word for what it admits.
    check = toolSchemas.compile(published) as JsonSchemaInput<T>['check'];
  } catch (error) {
    throw new TypeError(`jsonSchema: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return Object.freeze({ jsonSchema: deepFreeze(published), check });
}

/** Why `schema` does not compile as the SDK and the gateway check it, or undefined when it does. */
export function compileProblem(schema: Readonly<Record<string, unknown>>): string | undefined {
  try {
    toolSchemas.compile(schema);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** True for what `jsonSchema` made. */
export function isJsonSchemaInput(value: unknown): value is JsonSchemaInput {
  return typeof value === 'object' && value !== null && 'jsonSchema' in value && typeof (value as { check?: unknown }).check === 'function';
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
