// defineTool: one tool of a tool service, checked when it is defined, so a bad definition stops
// the service at start with a message naming the tool and the field. The keys are those of the MCP
// SDK's registerTool, so the gateway passes them through unchanged.
import { z } from 'zod';
import type { PlatformMcpCallContext } from './call-context.ts';

/** MCP tool annotations: hints shown to clients, not guarantees. */
export interface ToolAnnotations {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
}

/** A tool's result: a JSON object, sent to the agent as MCP `structuredContent`. */
export type ToolResult = Record<string, unknown>;

/** What a tool's handler returns: the input type of its output schema, or any JSON object without one. */
export type ResultOf<Output extends z.ZodObject | undefined> = Output extends z.ZodObject ? z.input<Output> : ToolResult;

/** A tool as written for `defineTool`: name, description, zod schemas, the permission it needs and its handler. */
export interface ToolSpec<Input extends z.ZodObject, Output extends z.ZodObject | undefined = undefined> {
  /** Unique within the service: letters, digits, `_` and `-`, 1 to 64 characters. */
  readonly name: string;
  readonly title: string;
  /** Written for the agent that decides whether to call the tool. */
  readonly description: string;
  /** An object schema; published as JSON Schema draft 2020-12, and the arguments are parsed by it. */
  readonly inputSchema: Input;
  /** The result's schema (MCP `outputSchema`); when given, every result is checked against it. */
  readonly outputSchema?: Output;
  /**
   * The permission (`area:action`) the person and the app must both hold, checked before the
   * handler runs: at the `companyId` argument when the input has one, else at some company.
   */
  readonly requiresPermission?: string;
  readonly annotations?: ToolAnnotations;
  /** Runs the tool with the parsed arguments and the call's context; its result goes to the agent as structured content. */
  readonly handler: (args: z.output<Input>, ctx: PlatformMcpCallContext) => Promise<ResultOf<Output>> | ResultOf<Output>;
}

/** A checked tool, ready to be served. */
export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly requiresPermission: string | undefined;
  readonly annotations: ToolAnnotations;
  readonly inputSchema: z.ZodObject;
  readonly outputSchema: z.ZodObject | undefined;
  /** The input schema as JSON Schema draft 2020-12, serialized. */
  readonly inputJsonSchema: string;
  /** The output schema as JSON Schema, serialized; empty when the tool declares none. */
  readonly outputJsonSchema: string;
  /** Whether the input has a `companyId`, where the permission is checked. */
  readonly checksAtCompanyArgument: boolean;
  /** The checked handler, called with parsed arguments. */
  readonly handler: (args: never, ctx: PlatformMcpCallContext) => unknown;
}

/** What a tool name may be: letters, digits, `_` and `-`, 1 to 64 characters. */
export const toolNamePattern = /^[A-Za-z0-9_-]{1,64}$/;
/** `area:action`, with more `:`-separated parts allowed (`iam:profile:view`). */
export const permissionPattern = /^[a-z0-9][a-z0-9._-]*(?::[a-z0-9][a-z0-9._-]*)+$/;

const annotationKeys = ['readOnlyHint', 'destructiveHint', 'idempotentHint'] as const;

/** Raised for a definition that cannot be served; the message names the tool and the field. */
export class ToolDefinitionError extends Error {
  override readonly name = 'ToolDefinitionError';
}

function refuse(name: unknown, field: string, problem: string): never {
  const who = typeof name === 'string' && name !== '' ? `tool "${name.slice(0, 80)}"` : 'a tool';
  throw new ToolDefinitionError(`${who}: ${field} ${problem}`);
}

/**
 * `type: ["string", "null"]` as `anyOf` branches of one type each: legal JSON Schema either way, but
 * clients that map tool schemas onto a single-`type` dialect (Gemini's function declarations, say)
 * reject or weaken the array form, and the MCP Inspector warns of it.
 */
function singleTyped(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTyped);
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node).map(([key, value]) => [key, singleTyped(value)] as const);
  const { type, ...keywords } = Object.fromEntries(entries) as Record<string, unknown>;
  if (!Array.isArray(type)) return Object.fromEntries(entries);
  return { anyOf: type.map((one: unknown) => (one === 'null' ? { type: 'null' } : { type: one, ...keywords })) };
}

function jsonSchemaOf(name: string, field: string, schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  let jsonSchema: Record<string, unknown>;
  try {
    jsonSchema = singleTyped(z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'throw' })) as Record<string, unknown>;
  } catch (error) {
    refuse(name, field, `cannot be published as JSON Schema (${error instanceof Error ? error.message : String(error)})`);
  }
  if (jsonSchema.type !== 'object') refuse(name, field, 'must describe a JSON object');
  return jsonSchema;
}

/** A `companyId` argument is where the permission is checked, so it must be a number when present. */
function takesCompanyId(name: string, inputJsonSchema: Record<string, unknown>): boolean {
  const property = (inputJsonSchema.properties as Record<string, { type?: unknown }> | undefined)?.companyId;
  if (property === undefined) return false;
  if (property.type !== 'integer' && property.type !== 'number') refuse(name, 'inputSchema.companyId', 'must be a number: the permission is checked at it');
  return true;
}

/** Checks a tool's definition and returns it frozen; throws ToolDefinitionError naming the tool and field. */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject | undefined = undefined>(spec: ToolSpec<Input, Output>): ToolDefinition {
  const { name, title, description, inputSchema, outputSchema, requiresPermission, annotations = {}, handler } = spec;
  if (typeof name !== 'string' || !toolNamePattern.test(name)) refuse(name, 'name', 'must be 1 to 64 letters, digits, "_" or "-"');
  if (typeof title !== 'string' || title.trim() === '') refuse(name, 'title', 'must be a non-empty string');
  if (typeof description !== 'string' || description.trim() === '') refuse(name, 'description', 'must say, for the agent, what the tool does');
  if (!(inputSchema instanceof z.ZodObject)) refuse(name, 'inputSchema', 'must be a zod object schema (z.object or z.strictObject)');
  if (outputSchema !== undefined && !(outputSchema instanceof z.ZodObject)) refuse(name, 'outputSchema', 'must be a zod object schema when given');
  if (requiresPermission !== undefined && (typeof requiresPermission !== 'string' || !permissionPattern.test(requiresPermission))) {
    refuse(name, 'requiresPermission', 'must be shaped area:action, such as device-overview:view');
  }
  for (const [key, value] of Object.entries(annotations)) {
    if (!(annotationKeys as readonly string[]).includes(key)) refuse(name, `annotations.${key}`, `is not one of ${annotationKeys.join(', ')}`);
    if (typeof value !== 'boolean') refuse(name, `annotations.${key}`, 'must be true or false');
  }
  if (typeof handler !== 'function') refuse(name, 'handler', 'must be a function (args, ctx) => result');
  const inputJsonSchema = jsonSchemaOf(name, 'inputSchema', inputSchema, 'input');

  return Object.freeze({
    name,
    title,
    description,
    requiresPermission,
    annotations: Object.freeze({ ...annotations }),
    inputSchema,
    outputSchema,
    inputJsonSchema: JSON.stringify(inputJsonSchema),
    outputJsonSchema: outputSchema ? JSON.stringify(jsonSchemaOf(name, 'outputSchema', outputSchema, 'output')) : '',
    checksAtCompanyArgument: takesCompanyId(name, inputJsonSchema),
    handler: handler,
  });
}
