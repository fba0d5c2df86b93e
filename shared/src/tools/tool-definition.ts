// defineTool: one tool of a tool service, checked when it is defined, so a bad definition stops
// the service at start with a message naming the tool and the field. The keys are those of the MCP
// SDK's registerTool, so the gateway passes them through unchanged.
import { z } from 'zod';
import type { PlatformMcpCallContext } from './call-context.ts';
import { compileProblem, isJsonSchemaInput, type JsonSchemaInput } from './json-schema-input.ts';
import type { ToolResultValue } from './tool-content.ts';

/** MCP tool annotations: hints shown to clients, not guarantees. */
export interface ToolAnnotations {
  /** MCP's hint: the tool changes nothing. */
  readonly readOnlyHint?: boolean;
  /** MCP's hint: the tool may delete or overwrite (meaningful when not read-only). */
  readonly destructiveHint?: boolean;
  /** MCP's hint: calling it again with the same arguments changes nothing more. */
  readonly idempotentHint?: boolean;
}

/**
 * MCP's `execution.taskSupport` (2025-11-25): whether a client may run the tool as an MCP task.
 * `forbidden`, the default: every call is answered at once. `optional`: run as a task when the
 * client asks for one. `required`: only run as a task (a client that cannot is refused).
 */
export type ToolTaskSupport = 'forbidden' | 'optional' | 'required';

/**
 * Where a call run as an MCP task becomes one. `handler`, the default: as the handler starts, so
 * every question it asks is put to the person inside the task. `explicit`: when the handler calls
 * `ctx.startTask()`; questions it asks before are put to the client in the call itself (MCP's
 * multi round-trip requests), and a handler that never calls it answers as a plain call does.
 */
export type ToolTaskStart = 'handler' | 'explicit';

/** MCP's `execution` of a tool: how it may be run. */
export interface ToolExecution {
  /** Whether a client may run the tool as an MCP task; default `forbidden`. */
  readonly taskSupport?: ToolTaskSupport;
  /** Where a call run as a task becomes one; default `handler`. */
  readonly taskStart?: ToolTaskStart;
}

/**
 * A tool's result: a JSON object, sent to the agent as MCP `structuredContent`; with the rest of the
 * result at most `MCP_MAX_TOOL_RESULT_BYTES` (1 MiB by default) and 64 levels deep.
 */
export type ToolResult = Record<string, unknown>;

/** A schema of a tool's arguments or result: a zod object, or a JSON Schema given as it is (`jsonSchema`). */
export type ToolSchema = z.ZodObject | JsonSchemaInput<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- any T: the handler's type comes from the schema

/** What a schema gives the handler: the zod object's output, or the type the JSON Schema was given with. */
export type ArgsOf<Input extends ToolSchema> = Input extends z.ZodObject ? z.output<Input> : Input extends JsonSchemaInput<infer T> ? T : never;

/**
 * What a tool's handler returns: the input type of its output schema, or any JSON object without
 * one (the structured content); or, for content blocks (images, resources, text), a `toolResult`.
 */
export type ResultOf<Output extends ToolSchema | undefined> =
  (Output extends z.ZodObject ? z.input<Output> : Output extends JsonSchemaInput<infer T> ? T : ToolResult) | ToolResultValue;

/** The outcome of checking a value against a tool's schema: the parsed value, or what is wrong, field by field. */
export type SchemaCheck = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problems: readonly string[] };

/** A tool as written for `defineTool`: name, description, schemas, the permission it needs and its handler. */
export interface ToolSpec<Input extends ToolSchema, Output extends ToolSchema | undefined = undefined> {
  /** Unique within the service: letters, digits, `_` and `-`, 1 to 64 characters. */
  readonly name: string;
  /** A short title a person reads (MCP `title`). */
  readonly title: string;
  /** Written for the agent that decides whether to call the tool. */
  readonly description: string;
  /**
   * The arguments' schema: a zod object, published as JSON Schema draft 2020-12 and parsing the
   * arguments; or a JSON Schema as it is (`jsonSchema(...)`), published unchanged and checked by Ajv.
   * An argument whose property carries `x-mcp-header` (zod: `.meta({ 'x-mcp-header': 'Region' })`) is
   * mirrored by 2026-07-28 clients into an `Mcp-Param-Region` header, which the gateway checks.
   */
  readonly inputSchema: Input;
  /** The result's schema (MCP `outputSchema`), zod or JSON Schema; when given, every result's structured content is checked against it. */
  readonly outputSchema?: Output;
  /**
   * The permission (`area:action`) the person and the app must both hold, checked before the
   * handler runs: at the `companyId` argument when the input has one, else at some company.
   */
  readonly requiresPermission?: string;
  /** MCP's hints to clients (read-only, destructive, idempotent); only these three are accepted. */
  readonly annotations?: ToolAnnotations;
  /**
   * The longest one call of the tool may run, in milliseconds (100 to 600 000): a tool that must
   * answer sooner than the gateway's limit, or one that needs longer. The gateway gives each call
   * the smaller of this and its own maximum, `TOOL_CALL_TIMEOUT_MS` (30 000 by default), so a tool
   * never runs past the gateway's maximum; without it a call has the gateway's maximum. Past the
   * limit the call's `ctx.signal` is aborted and the agent gets an `isError` result naming the limit.
   */
  readonly timeoutMs?: number;
  /**
   * How the tool may be run (MCP's `execution`): `{ taskSupport: 'optional' }` or `'required'` lets a
   * client run it as an MCP task, which may outlive a delegated token and is polled by the person.
   * The handler is the same: `ctx.progress` becomes the task's status message, questions turn the
   * task input-required, `ctx.signal` aborts when the person cancels or stops polling, and
   * `ctx.authToken` (and the platform clients) follow the token the gateway renews at each poll.
   */
  readonly execution?: ToolExecution;
  /**
   * Runs the tool with the parsed arguments and the call's context. A JSON object it returns goes to
   * the agent as structured content; a `toolResult` as its content blocks (text, image, audio,
   * resource links, embedded resources).
   *
   * Limits the gateway holds every result to: at most `MCP_MAX_TOOL_RESULT_BYTES` (1 MiB by
   * default; structured content's JSON and every block together, media counted as base64) and 64
   * levels of nesting, else the agent gets an `isError` result instead. A call may run until its
   * time limit (`timeoutMs`, else the gateway's `TOOL_CALL_TIMEOUT_MS`, 30 s by default): then
   * `ctx.signal` aborts and the agent is told the call did not finish, naming the limit.
   */
  readonly handler: (args: ArgsOf<Input>, ctx: PlatformMcpCallContext) => Promise<ResultOf<Output>> | ResultOf<Output>;
}

/** A checked tool, ready to be served. */
export interface ToolDefinition {
  /** The tool's name (see `ToolSpec.name`). */
  readonly name: string;
  /** The title a person reads. */
  readonly title: string;
  /** The description the agent reads. */
  readonly description: string;
  /** The permission checked before the handler runs (see `ToolSpec.requiresPermission`), or undefined. */
  readonly requiresPermission: string | undefined;
  /** MCP's hints, as given. */
  readonly annotations: ToolAnnotations;
  /** The tool's own time limit per call in milliseconds, or undefined for the gateway's (see ToolSpec.timeoutMs). */
  readonly timeoutMs: number | undefined;
  /** Whether a client may run the tool as an MCP task (see ToolSpec.execution); `forbidden` when not given. */
  readonly taskSupport: ToolTaskSupport;
  /** Where a call run as a task becomes one (see ToolExecution.taskStart); `handler` when not given. */
  readonly taskStart: ToolTaskStart;
  /** The arguments' schema, as given. */
  readonly inputSchema: ToolSchema;
  /** The result's schema, as given, or undefined. */
  readonly outputSchema: ToolSchema | undefined;
  /** The input schema as JSON Schema, serialized. */
  readonly inputJsonSchema: string;
  /** The output schema as JSON Schema, serialized; empty when the tool declares none. */
  readonly outputJsonSchema: string;
  /** Parses arguments by the input schema. */
  checkInput(value: unknown): SchemaCheck;
  /** Checks a result's structured content against the output schema; anything passes without one. */
  checkOutput(value: unknown): SchemaCheck;
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

const taskSupports: readonly ToolTaskSupport[] = ['forbidden', 'optional', 'required'];

/** The bounds of a tool's own time limit: the gateway's bounds of TOOL_CALL_TIMEOUT_MS. */
const timeoutBounds = { min: 100, max: 600_000 } as const;

/** Raised for a definition that cannot be served (a TypeError: the definition is not what defineTool takes); the message names the tool and the field. */
export class ToolDefinitionError extends TypeError {
  /** Always `ToolDefinitionError`. */
  override readonly name = 'ToolDefinitionError';
  /** Always `TOOL_DEFINITION_INVALID`. */
  readonly code = 'TOOL_DEFINITION_INVALID';
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

function jsonSchemaOf(name: string, field: string, schema: ToolSchema, io: 'input' | 'output'): Record<string, unknown> {
  let jsonSchema: Record<string, unknown>;
  if (!(schema instanceof z.ZodObject)) jsonSchema = schema.jsonSchema;
  else {
    try {
      jsonSchema = singleTyped(z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'throw' })) as Record<string, unknown>;
    } catch (error) {
      refuse(name, field, `cannot be published as JSON Schema (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  if (jsonSchema.type !== 'object') refuse(name, field, 'must describe a JSON object');
  // The gateway checks results against it with linear-time patterns and refuses, at Register, one it cannot compile.
  if (io === 'output' && schema instanceof z.ZodObject) {
    const problem = compileProblem(jsonSchema);
    if (problem !== undefined) refuse(name, field, `cannot be checked by the gateway (${problem})`);
  }
  return jsonSchema;
}

/** The check of a value against a schema: zod's parse, or Ajv's for a JSON Schema. */
function checkerOf(schema: ToolSchema): (value: unknown) => SchemaCheck {
  if (!(schema instanceof z.ZodObject)) return (value) => schema.check(value);
  return (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problems: parsed.error.issues.map(describeIssue) };
  };
}

/** `companyId: must be ...`, with the path of the problem. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.length > 0 ? issue.path.map((segment) => String(segment).slice(0, 64)).join('.') : 'arguments';
  return `${path}: ${issue.message.slice(0, 200)}`;
}

/** A `companyId` argument is where the permission is checked, so it must be a number when present. */
function takesCompanyId(name: string, inputJsonSchema: Record<string, unknown>): boolean {
  const property = (inputJsonSchema.properties as Record<string, { type?: unknown }> | undefined)?.companyId;
  if (property === undefined) return false;
  if (property.type !== 'integer' && property.type !== 'number') refuse(name, 'inputSchema.companyId', 'must be a number: the permission is checked at it');
  return true;
}

const taskStarts: readonly ToolTaskStart[] = ['handler', 'explicit'];

/** The checked `execution`: `forbidden` and `handler` when not given. */
function executionOf(name: string, execution: unknown): { taskSupport: ToolTaskSupport; taskStart: ToolTaskStart } {
  if (execution === undefined) return { taskSupport: 'forbidden', taskStart: 'handler' };
  if (execution === null || typeof execution !== 'object' || Array.isArray(execution))
    refuse(name, 'execution', 'must be an object such as { taskSupport: "optional" }');
  for (const key of Object.keys(execution))
    if (key !== 'taskSupport' && key !== 'taskStart') refuse(name, `execution.${key}`, 'is not a key of execution (taskSupport, taskStart)');
  const { taskSupport = 'forbidden', taskStart = 'handler' } = execution as { taskSupport?: unknown; taskStart?: unknown };
  if (!(taskSupports as readonly unknown[]).includes(taskSupport))
    refuse(name, 'execution.taskSupport', `must be one of ${taskSupports.map((one) => `"${one}"`).join(', ')}`);
  if (!(taskStarts as readonly unknown[]).includes(taskStart))
    refuse(name, 'execution.taskStart', `must be one of ${taskStarts.map((one) => `"${one}"`).join(', ')}`);
  return { taskSupport: taskSupport as ToolTaskSupport, taskStart: taskStart as ToolTaskStart };
}

/** Checks a tool's definition and returns it frozen; throws ToolDefinitionError naming the tool and field. */
export function defineTool<Input extends ToolSchema, Output extends ToolSchema | undefined = undefined>(spec: ToolSpec<Input, Output>): ToolDefinition {
  const { name, title, description, inputSchema, outputSchema, requiresPermission, annotations = {}, timeoutMs, execution, handler } = spec;
  if (typeof name !== 'string' || !toolNamePattern.test(name)) refuse(name, 'name', 'must be 1 to 64 letters, digits, "_" or "-"');
  if (typeof title !== 'string' || title.trim() === '') refuse(name, 'title', 'must be a non-empty string');
  if (typeof description !== 'string' || description.trim() === '') refuse(name, 'description', 'must say, for the agent, what the tool does');
  const isSchema = (schema: unknown) => schema instanceof z.ZodObject || isJsonSchemaInput(schema);
  if (!isSchema(inputSchema)) refuse(name, 'inputSchema', 'must be a zod object schema (z.object or z.strictObject) or jsonSchema(...)');
  if (outputSchema !== undefined && !isSchema(outputSchema)) refuse(name, 'outputSchema', 'must be a zod object schema or jsonSchema(...) when given');
  if (requiresPermission !== undefined && (typeof requiresPermission !== 'string' || !permissionPattern.test(requiresPermission))) {
    refuse(name, 'requiresPermission', 'must be shaped area:action, such as device-overview:view');
  }
  for (const [key, value] of Object.entries(annotations)) {
    if (!(annotationKeys as readonly string[]).includes(key)) refuse(name, `annotations.${key}`, `is not one of ${annotationKeys.join(', ')}`);
    if (typeof value !== 'boolean') refuse(name, `annotations.${key}`, 'must be true or false');
  }
  if (timeoutMs !== undefined && (!Number.isSafeInteger(timeoutMs) || timeoutMs < timeoutBounds.min || timeoutMs > timeoutBounds.max)) {
    refuse(name, 'timeoutMs', `must be a whole number of milliseconds from ${timeoutBounds.min} to ${timeoutBounds.max}`);
  }
  const { taskSupport, taskStart } = executionOf(name, execution);
  if (typeof handler !== 'function') refuse(name, 'handler', 'must be a function (args, ctx) => result');
  const inputJsonSchema = jsonSchemaOf(name, 'inputSchema', inputSchema, 'input');

  return Object.freeze({
    name,
    title,
    description,
    requiresPermission,
    annotations: Object.freeze({ ...annotations }),
    timeoutMs,
    taskSupport,
    taskStart,
    inputSchema,
    outputSchema,
    inputJsonSchema: JSON.stringify(inputJsonSchema),
    outputJsonSchema: outputSchema ? JSON.stringify(jsonSchemaOf(name, 'outputSchema', outputSchema, 'output')) : '',
    checksAtCompanyArgument: takesCompanyId(name, inputJsonSchema),
    checkInput: checkerOf(inputSchema),
    checkOutput: outputSchema ? checkerOf(outputSchema) : (value: unknown): SchemaCheck => ({ ok: true, value }),
    handler,
  });
}
