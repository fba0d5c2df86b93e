// A service's ListTools answer, checked tool by tool before anything of it is exposed: names MCP
// clients accept, schemas that are JSON objects of a bounded size, no name twice. Schemas are kept
// as published (parsed, frozen, never transformed).
import type { Tool__Output } from '@platform/proto';
import { clip, createSchemaChecks, isSafeText, nestsDeeperThan, permissionPattern, toolNamePattern, type SchemaChecks } from '@platform/tool-sdk/internal';
import type { RemoteTool } from '../remote-tools.ts';
import { compileOutputCheck } from '../tool-results/index.ts';

/**
 * One tool as its service announced it in ListTools, checked: what the gateway exposes of it, before
 * the catalog gives it an exposed name and its service. (A tool author's ToolDefinition is the SDK's.)
 */
export type AnnouncedTool = Omit<RemoteTool, 'exposedName' | 'service'>;

export interface ServiceTool {
  readonly definition: AnnouncedTool;
  /** Everything an MCP client sees of the tool, as one string: equal fingerprints list the same. */
  readonly fingerprint: string;
}

export const toolLimits = Object.freeze({
  maxTools: 256,
  maxSchemaBytes: 64 * 1024,
  maxSchemaDepth: 64,
  maxTitleLength: 256,
  maxDescriptionLength: 16 * 1024,
});

/** What is wrong with a service's tools: one line per problem, each naming the tool. */
export class ToolProblems extends Error {
  override readonly name = 'ToolProblems';
  readonly code = 'TOOLS_UNEXPOSABLE';
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    const shown = problems.slice(0, 5).join('; ');
    super(problems.length > 5 ? `${shown}; and ${problems.length - 5} more` : shown);
    this.problems = problems;
  }
}

/** One field of one tool the gateway cannot expose; collected into ToolProblems. */
class Refusal extends Error {
  override readonly name = 'Refusal';
  readonly code = 'TOOL_FIELD_REFUSED';
}

/** Keywords whose value maps names (any name, `$ref` too) to subschemas. */
const schemaMaps = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
/** Keywords whose value is data, not schema: a `$ref` in it is a value like any other. */
const dataKeywords = new Set(['default', 'const', 'enum', 'examples']);
/** Keywords that name a schema to fetch. */
const references = new Set(['$ref', '$dynamicRef', '$recursiveRef']);
/** The dialects a `$schema` may name: JSON Schema's own, which no client fetches. */
const dialects = new Set(
  ['2020-12', '2019-09']
    .map((v) => `https://json-schema.org/draft/${v}/schema`)
    .concat(['07', '06', '04'].map((v) => `http://json-schema.org/draft-${v}/schema`)),
);

/**
 * The first keyword that points outside the schema: a reference other than `#...`, or a `$schema`
 * other than a JSON Schema dialect. A client that resolves it would fetch whatever it names, an
 * internal address included. `names` says that `value` maps names to subschemas, so its keys are no
 * keywords. Nesting is known to be within the limit.
 */
function outsideReference(value: unknown, names = false): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const keywords = !names && !Array.isArray(value);
  for (const [key, item] of Object.entries(value)) {
    if (keywords && references.has(key) && (typeof item !== 'string' || !item.startsWith('#'))) return key;
    if (keywords && key === '$schema' && (typeof item !== 'string' || !dialects.has(item.replace(/#$/, '')))) return key;
    if (keywords && dataKeywords.has(key)) continue;
    const found = outsideReference(item, keywords && schemaMaps.has(key));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Freezes parsed JSON in place, whose nesting is already known to be within the limit. */
function freezeJson(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  for (const item of Object.values(value)) freezeJson(item);
  Object.freeze(value);
}

function objectSchema(json: string, field: string): Readonly<Record<string, unknown>> {
  if (Buffer.byteLength(json) > toolLimits.maxSchemaBytes) throw new Refusal(`${field} is larger than ${toolLimits.maxSchemaBytes} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Refusal(`${field} is not JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Refusal(`${field} must be a JSON object`);
  if ((parsed as Record<string, unknown>).type !== 'object') throw new Refusal(`${field} must describe an object (type "object")`);
  if (nestsDeeperThan(parsed, toolLimits.maxSchemaDepth)) throw new Refusal(`${field} nests deeper than ${toolLimits.maxSchemaDepth} levels`);
  const reference = outsideReference(parsed);
  if (reference !== undefined)
    throw new Refusal(`${field} has a ${reference} outside the schema; only references within it (#...) and JSON Schema's own dialects are published`);
  freezeJson(parsed);
  return parsed as Readonly<Record<string, unknown>>;
}

/**
 * The output schema, which the gateway checks every structured result against: one it cannot
 * compile (a pattern linear-time matching has not, a $ref to nowhere) is refused now rather than
 * every result of the tool later.
 */
function outputSchema(json: string, checks: SchemaChecks): Readonly<Record<string, unknown>> {
  const schema = objectSchema(json, 'output_schema_json');
  try {
    compileOutputCheck(schema, checks);
  } catch (error) {
    throw new Refusal(`output_schema_json cannot be used to check results (${clip(error instanceof Error ? error.message : String(error), 300)})`);
  }
  return schema;
}

function definitionOf(tool: Tool__Output, checks: SchemaChecks): AnnouncedTool {
  // The rule the gateway cleans results by (shown-text.ts): what it would have to clean is refused here.
  if (!isSafeText(tool.title)) throw new Refusal('title contains control or bidirectional-override characters');
  if (!isSafeText(tool.description)) throw new Refusal('description contains control or bidirectional-override characters');
  if (tool.title.length > toolLimits.maxTitleLength) throw new Refusal(`title is longer than ${toolLimits.maxTitleLength} characters`);
  if (tool.description.length > toolLimits.maxDescriptionLength) {
    throw new Refusal(`description is longer than ${toolLimits.maxDescriptionLength} characters`);
  }
  if (tool.requiresPermission && !permissionPattern.test(tool.requiresPermission)) {
    throw new Refusal('requires_permission must look like area:action');
  }
  return Object.freeze({
    name: tool.name,
    title: tool.title || undefined,
    description: tool.description,
    inputSchema: objectSchema(tool.inputSchemaJson, 'input_schema_json'),
    outputSchema: tool.outputSchemaJson ? outputSchema(tool.outputSchemaJson, checks) : undefined,
    requiresPermission: tool.requiresPermission || undefined,
    annotations: Object.freeze({ readOnlyHint: tool.readOnlyHint, destructiveHint: tool.destructiveHint, idempotentHint: tool.idempotentHint }),
    // A registration stored before the field existed has none: the gateway's limit.
    timeoutMs: tool.timeoutMs > 0 ? tool.timeoutMs : undefined,
    // A service built before tasks, or a row stored before, says nothing: never a task.
    taskSupport: taskSupportOf(tool.taskSupport),
  });
}

function taskSupportOf(declared: Tool__Output['taskSupport'] | undefined): RemoteTool['taskSupport'] {
  if (declared === 'TASK_SUPPORT_OPTIONAL') return 'optional';
  if (declared === 'TASK_SUPPORT_REQUIRED') return 'required';
  return undefined;
}

const named = (name: string) => (name ? `tool ${JSON.stringify(clip(name, 80))}` : 'a tool without a name');

/** The tools as the gateway will expose them; throws ToolProblems naming every tool at fault. */
export function serviceTools(tools: readonly Tool__Output[]): ServiceTool[] {
  if (tools.length > toolLimits.maxTools)
    throw new ToolProblems([`the service offers ${tools.length} tools; the gateway takes at most ${toolLimits.maxTools}`]);
  const problems: string[] = [];
  const seen = new Set<string>();
  const checked: ServiceTool[] = [];
  // The registration's own checks: each output schema compiled here is the one its calls use (output-check.ts).
  const checks = createSchemaChecks();
  for (const tool of tools) {
    if (!toolNamePattern.test(tool.name)) {
      // The SDK's rule for what a tool is named, whatever built the service: MCP allows dots and 128
      // characters, but the gateway prefixes names and keeps them to what every tool defines.
      problems.push(`${named(tool.name)}: name must be 1 to 64 letters, digits, '_' or '-'`);
      continue;
    }
    // `__` ends the app key in an exposed name (`<appKey>__<name>`): a tool named with it could pass
    // for another app's prefixed tool.
    if (tool.name.includes('__')) {
      problems.push(`${named(tool.name)}: name must not contain '__', which the gateway uses to prefix colliding names`);
      continue;
    }
    if (seen.has(tool.name)) {
      problems.push(`${named(tool.name)}: name is used by two tools of the service`);
      continue;
    }
    seen.add(tool.name);
    try {
      const definition = definitionOf(tool, checks);
      const fingerprint = JSON.stringify([
        tool.name,
        tool.title,
        tool.description,
        tool.inputSchemaJson,
        tool.outputSchemaJson,
        tool.requiresPermission,
        tool.readOnlyHint,
        tool.destructiveHint,
        tool.idempotentHint,
        tool.timeoutMs || 0,
        // Only when declared, so a tool's fingerprint from before tasks stays what it was.
        ...(definition.taskSupport === undefined ? [] : [definition.taskSupport]),
      ]);
      checked.push({ definition, fingerprint });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      problems.push(`${named(tool.name)}: ${error.message}`);
    }
  }
  if (problems.length > 0) throw new ToolProblems(problems);
  return checked;
}
