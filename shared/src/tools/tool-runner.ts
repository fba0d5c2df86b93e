// One tool call, from the gRPC request to its answer, framework-free: the delegated token is
// checked at the platform (cached), the tool found, its arguments parsed by its schema, its
// permission enforced, and only then the handler run with its call context.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { CallToolResponse, Tool } from '@platform/proto';
import type { z } from 'zod';
import type { CallerCheck } from '../check-caller.ts';
import { isPlatformError } from '../errors.ts';
import { nestsDeeperThan } from '../json-nesting.ts';
import { clip } from '../short-text.ts';
import { createCallContext } from './call-context.ts';
import { outcomeOf } from './grpc-status.ts';
import type { ToolDefinition } from './tool-definition.ts';
import { permissionDenied, ToolCallError, toolCallCatalog } from './tool-errors.ts';
import { inSpan, SpanKind, SpanStatusCode, type Span } from '../observability/tracing.ts';
import { toolCallSpanName, toolCallAttributes, type ToolCallObserver } from '../observability/tool-call-telemetry.ts';

/** One tool call as the gateway sends it: name, arguments as JSON, the credential and the request id. */
export interface ToolCall {
  readonly name: string;
  readonly argumentsJson: string;
  /** The gateway's correlation id; a fresh one is made when it is missing or malformed. */
  readonly requestId: string;
  /** The `authorization` metadata values. */
  readonly authorization: readonly string[];
  /** Aborted, with a ToolCallError as reason, at the deadline or when the call is cancelled. */
  readonly signal: AbortSignal;
  /** The gateway's trace context (`traceparent`, `tracestate` metadata), the parent of this call's span. */
  readonly traceContext?: Readonly<Record<string, string | undefined>>;
}

/** How a call ended: an answer (a result, or a tool error the agent reads), or a refusal status. */
export type ToolCallOutcome = { readonly answer: CallToolResponse } | { readonly refusal: ToolCallError };

/** The tools, the caller check and the platform clients a runner uses. */
export interface ToolRunnerOptions {
  readonly tools: readonly ToolDefinition[];
  /** The caller check: only tokens delegated to this app, issued for the platform API. */
  readonly checkCaller: CallerCheck;
  readonly logger: Logger;
  readonly apiBaseUrl: string;
  readonly platformApiBaseUrls: ReadonlyMap<string, string>;
  readonly httpTimeoutMs: number;
  /** The fetch of the tools' platform API requests; the global one by default. */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /** Told how each call ended and how long it took: the service's metrics. */
  readonly observer?: ToolCallObserver;
}

/** Runs tool calls: the caller check, the schema, the permission, then the handler. */
export interface ToolRunner {
  /** The tools as ListTools answers them, in the order they were registered. */
  readonly listing: readonly Tool[];
  /** The call's outcome: a result, a tool error, or a refusal with its gRPC status. */
  call(call: ToolCall): Promise<ToolCallOutcome>;
}

/** Refusals that are this side's failure, not the caller's: the server span is marked failed. */
const serverFaults: ReadonlySet<string> = new Set(['INTERNAL', 'UNAVAILABLE', 'DEADLINE_EXCEEDED']);

const requestIdPattern = /^[\w.:-]{1,128}$/;

function toolMessage(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchemaJson: tool.inputJsonSchema,
    outputSchemaJson: tool.outputJsonSchema,
    requiresPermission: tool.requiresPermission ?? '',
    readOnlyHint: tool.annotations.readOnlyHint ?? false,
    destructiveHint: tool.annotations.destructiveHint ?? false,
    idempotentHint: tool.annotations.idempotentHint ?? false,
  };
}

/** Longest details of a refusal, in its status and its log line, whatever the input. */
export const maxDetailLength = 1_024;
const maxNesting = 64;

/** `companyId: must be ...; name: is required`, with the path of each problem, short enough for any gRPC status. */
function describeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map((segment) => String(segment).slice(0, 64)).join('.') : 'arguments';
    return `${path}: ${issue.message.slice(0, 200)}`;
  });
  return clip(`${shown.join('; ')}${error.issues.length > 5 ? `; and ${error.issues.length - 5} more` : ''}`, maxDetailLength);
}

function parseArguments(tool: ToolDefinition, argumentsJson: string): unknown {
  let raw: unknown;
  try {
    raw = argumentsJson.trim() === '' ? {} : JSON.parse(argumentsJson);
  } catch {
    throw new ToolCallError('INVALID_ARGUMENT', 'arguments_json: is not valid JSON');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ToolCallError('INVALID_ARGUMENT', 'arguments_json: must be a JSON object');
  if (nestsDeeperThan(raw, maxNesting)) throw new ToolCallError('INVALID_ARGUMENT', `arguments_json: nests deeper than ${maxNesting} levels`);
  const parsed = tool.inputSchema.safeParse(raw);
  if (!parsed.success) throw new ToolCallError('INVALID_ARGUMENT', describeIssues(parsed.error));
  return parsed.data;
}

function resultOf(tool: ToolDefinition, value: unknown): CallToolResponse {
  let result = value;
  if (tool.outputSchema) {
    const parsed = tool.outputSchema.safeParse(value);
    if (!parsed.success) throw new TypeError(`tool ${tool.name} returned a result its outputSchema refuses: ${describeIssues(parsed.error)}`);
    result = parsed.data;
  }
  if (result === null || typeof result !== 'object' || Array.isArray(result))
    throw new TypeError(`tool ${tool.name} returned something other than a JSON object`);
  return { resultJson: JSON.stringify(result), isError: false, text: '' };
}

/** A `ToolRunner` over the given tools. */
export function createToolRunner(options: ToolRunnerOptions): ToolRunner {
  const { checkCaller, logger, apiBaseUrl, platformApiBaseUrls, httpTimeoutMs, fetch } = options;
  // Each tool with its handler's span, whose name and attributes are made once, not on every call.
  const byName = new Map(
    options.tools.map((tool) => [
      tool.name,
      {
        tool,
        spanName: `execute_tool ${tool.name}`,
        spanOptions: { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool.name } },
      },
    ]),
  );

  const listing = Object.freeze(options.tools.map(toolMessage));

  const call = (request: ToolCall): Promise<ToolCallOutcome> =>
    inSpan(toolCallSpanName, toolCallAttributes(request.traceContext), (span) => run(request, span));

  const run = async (request: ToolCall, span: Span): Promise<ToolCallOutcome> => {
    const started = performance.now();
    const requestId = requestIdPattern.test(request.requestId) ? request.requestId : randomUUID();
    let callerId: string | undefined;
    try {
      const checked = await checkCaller(request.authorization.length === 1 ? request.authorization[0] : request.authorization).catch((error: unknown) => {
        throw isPlatformError(error)
          ? new ToolCallError('UNAVAILABLE', `the platform could not check the delegated token: ${error.message}`, { cause: error })
          : error;
      });
      if (!checked.ok) throw new ToolCallError('UNAUTHENTICATED', `the delegated token was refused: ${checked.description}`);
      const { caller, credential } = checked;
      callerId = caller.id;

      const found = byName.get(request.name);
      if (!found) throw new ToolCallError('NOT_FOUND', `this service has no tool named "${request.name.slice(0, 64)}"`);
      const { tool } = found;
      const args = parseArguments(tool, request.argumentsJson);

      const ctx = createCallContext({
        token: credential.token,
        caller,
        toolName: tool.name,
        requestId,
        signal: request.signal,
        logger,
        apiBaseUrl,
        platformApiBaseUrls,
        httpTimeoutMs,
        fetch,
      });
      const permission = tool.requiresPermission;
      if (permission !== undefined) {
        const companyId = tool.checksAtCompanyArgument ? (args as { companyId?: number }).companyId : undefined;
        if (companyId !== undefined) ctx.requirePermission(permission, companyId);
        else if (!ctx.companies.some((company) => company.permissions.has(permission))) throw permissionDenied(permission, undefined);
      }
      request.signal.throwIfAborted();
      const value = await inSpan(found.spanName, found.spanOptions, () => untilAborted(tool.handler(args as never, ctx), request.signal));
      request.signal.throwIfAborted();
      return settle({ answer: resultOf(tool, value) });
    } catch (error) {
      return settle(outcomeOf(error, request.signal), error);
    }

    function settle(outcome: ToolCallOutcome, error?: unknown): ToolCallOutcome {
      const seconds = (performance.now() - started) / 1000;
      const label = 'answer' in outcome ? (outcome.answer.isError ? 'tool_error' : 'ok') : outcome.refusal.code;
      if (span.isRecording()) {
        // All at once, at the end: each attribute set on its own is checked and copied on its own.
        span.setAttributes({
          ...(callerId !== undefined && { 'enduser.id': callerId }),
          ...(byName.has(request.name) && { 'gen_ai.tool.name': request.name }),
          'platform.outcome': label,
          'rpc.grpc.status_code': 'answer' in outcome ? 0 : toolCallCatalog[outcome.refusal.code].status,
        });
        if ('refusal' in outcome && serverFaults.has(outcome.refusal.code)) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      options.observer?.called(byName.has(request.name) ? request.name : 'unknown', label, seconds);
      const isError = 'refusal' in outcome && outcome.refusal.code === 'INTERNAL';
      // A line that is not written costs nothing: its fields are made only for one that is.
      if (!logger.isLevelEnabled(isError ? 'error' : 'info')) return outcome;
      const fields = { requestId, tool: request.name.slice(0, 64), callerId, durationMs: Math.round(seconds * 10_000) / 10 };
      if ('answer' in outcome) {
        logger.info({ ...fields, outcome: outcome.answer.isError ? 'tool_error' : 'ok' }, 'tool call');
      } else if (outcome.refusal.code === 'INTERNAL') {
        logger.error({ ...fields, outcome: 'INTERNAL', err: error }, 'tool call failed unexpectedly');
      } else {
        logger.info({ ...fields, outcome: outcome.refusal.code, reason: clip(outcome.refusal.message, maxDetailLength) }, 'tool call refused');
      }
      return outcome;
    }
  };

  return { listing, call };
}

/**
 * What the handler answered, or a rejection with the signal's reason once it is aborted, so a
 * handler that ignores the signal does not hold the answer. A handler that answered at once (no
 * promise) needs no race: the runner checks the signal right after.
 */
function untilAborted(answer: unknown, signal: AbortSignal): unknown {
  if (typeof (answer as { then?: unknown } | null)?.then !== 'function') return answer;
  return Promise.race([answer, aborted(signal)]);
}

/** Rejects with the signal's reason once it is aborted. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    else
      signal.addEventListener(
        'abort',
        () => {
          reject(signal.reason as Error);
        },
        { once: true },
      );
  });
}
