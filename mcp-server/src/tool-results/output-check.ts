// Whether a tool's structured result matches the output schema its service published, checked with
// the MCP SDK's JSON Schema validator (Ajv, the dialect the schema declares). One validator per
// registration, each schema compiled once: both are held weakly by the registration and its
// schema, so they go when the registration goes, and no service's schemas ($id and all) meet
// another's.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { RemoteTool } from '../remote-tools.ts';

type Check = (value: unknown) => { readonly valid: true } | { readonly valid: false; readonly problem: string };

const validators = new WeakMap<object, AjvJsonSchemaValidator>();
const checks = new WeakMap<object, Check>();

function compile(tool: RemoteTool, schema: Readonly<Record<string, unknown>>): Check {
  let validator = validators.get(tool.service);
  if (!validator) validators.set(tool.service, (validator = new AjvJsonSchemaValidator()));
  try {
    const validate = validator.getValidator(schema);
    return (value) => {
      const outcome = validate(value);
      return outcome.valid ? { valid: true } : { valid: false, problem: outcome.errorMessage };
    };
  } catch (error) {
    // A schema the validator cannot use: no result can be shown as matching it.
    const problem = `its output schema cannot be used to check it (${error instanceof Error ? error.message : String(error)})`;
    return () => ({ valid: false, problem });
  }
}

/** Checks `value` against the tool's output schema; a tool without one takes anything. */
export function checkOutput(tool: RemoteTool, value: unknown): ReturnType<Check> {
  const schema = tool.outputSchema;
  if (schema === undefined) return { valid: true };
  let check = checks.get(schema);
  if (!check) checks.set(schema, (check = compile(tool, schema)));
  return check(value);
}
