// Whether a tool's structured result matches the output schema its service published, checked with
// the tool SDK's JSON Schema checks (Ajv in the dialect the schema declares, its patterns run in
// linear time: another app's schema cannot hold the gateway's event loop). One set of checks per
// registration, each schema compiled once: both are held weakly by the registration and its
// schema, so they go when the registration goes, and no service's schemas ($id and all) meet
// another's.
import { createSchemaChecks, type SchemaChecks } from '@platform/tool-sdk/internal';
import type { RemoteTool } from '../remote-tools.ts';

type Check = (value: unknown) => { readonly valid: true } | { readonly valid: false; readonly problem: string };

const registrations = new WeakMap<object, SchemaChecks>();
const checks = new WeakMap<object, Check>();

function compile(tool: RemoteTool, schema: Readonly<Record<string, unknown>>): Check {
  let schemaChecks = registrations.get(tool.service);
  if (!schemaChecks) registrations.set(tool.service, (schemaChecks = createSchemaChecks()));
  try {
    const check = schemaChecks.compile(schema, 'structuredContent');
    return (value) => {
      const outcome = check(value);
      return outcome.ok ? { valid: true } : { valid: false, problem: outcome.problems.join('; ') };
    };
  } catch (error) {
    // A schema the checks cannot use: no result can be shown as matching it.
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
