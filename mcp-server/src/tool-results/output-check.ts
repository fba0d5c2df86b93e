// Whether a tool's structured result matches the output schema its service published, checked with
// the tool SDK's JSON Schema checks (Ajv in the dialect the schema declares, its patterns run in
// linear time: another app's schema cannot hold the gateway's event loop). Each schema is compiled
// once, when its registration's tools are read (service-tools.ts), with checks of that registration
// alone, so no service's schemas ($id and all) meet another's; the check is held weakly by the
// schema, so it goes when the registration goes.
import { createSchemaChecks, type SchemaChecks } from '@platform/tool-sdk/internal';
import type { RemoteTool } from '../remote-tools.ts';

type Check = (value: unknown) => { readonly valid: true } | { readonly valid: false; readonly problem: string };

const checks = new WeakMap<object, Check>();

/** Compiles `schema` with `schemaChecks` (a registration's) and keeps its check for the calls; throws TypeError when it does not compile. */
export function compileOutputCheck(schema: Readonly<Record<string, unknown>>, schemaChecks: SchemaChecks): void {
  const check = schemaChecks.compile(schema, 'structuredContent');
  checks.set(schema, (value) => {
    const outcome = check(value);
    return outcome.ok ? { valid: true } : { valid: false, problem: outcome.problems.join('; ') };
  });
}

/** Checks `value` against the tool's output schema; a tool without one takes anything. */
export function checkOutput(tool: RemoteTool, value: unknown): ReturnType<Check> {
  const schema = tool.outputSchema;
  if (schema === undefined) return { valid: true };
  if (!checks.has(schema)) {
    // A tool not read from a registration (made whole elsewhere): compiled now, on checks of its own.
    try {
      compileOutputCheck(schema, createSchemaChecks());
    } catch (error) {
      // A schema the checks cannot use: no result can be shown as matching it.
      const problem = `its output schema cannot be used to check it (${error instanceof Error ? error.message : String(error)})`;
      checks.set(schema, () => ({ valid: false, problem }));
    }
  }
  return checks.get(schema)?.(value) ?? { valid: false, problem: 'its output schema could not be compiled' };
}
