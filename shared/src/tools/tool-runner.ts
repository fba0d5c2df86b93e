// One tool call, from the gRPC request to its final event, framework-free: the delegated token is
// checked at the platform (cached), the tool found, its arguments parsed by its schema, its
// permission enforced, and only then the handler run with its call context. What the handler
// reports on the way (progress, log messages) goes to the call's events as it happens; the call
// ends with its result, with the questions it waits on, or with a refusal.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ClientAbilities__Output, InputRequired, TaskSupport, Tool, ToolResult as ToolResultMessage } from '@platform/proto';
import type { CallerCheck } from '../caller/check-caller.ts';
import { isPlatformError } from '../errors/platform-error.ts';
import { nestsDeeperThan } from '../http/json-nesting.ts';
import { clip } from '../text/short-text.ts';
import { clientLogLevels, createCallContext, noClient, type CallClient, type CallEvents, type ClientLogLevel } from './call-context.ts';
import type { PlatformApiOptions } from './call-context.ts';
import { outcomeOf } from './grpc-status.ts';
import { isToolResultValue, resultMessageOf } from './tool-content.ts';
import type { ToolDefinition, ToolTaskSupport } from './tool-definition.ts';
import { permissionDenied, ToolCallError, toolCallCatalog } from './tool-errors.ts';
import { createQuestions, type Questions } from './tool-questions.ts';
import { interruption, untilInterrupted } from './run-interruption.ts';
import { createRenewableToken, type TokenRenewals } from './token-renewal.ts';
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
  /** What the MCP client can take (progress, log messages, questions); nothing when absent. */
  readonly client?: ClientAbilities__Output | null | undefined;
  /** The answers to the tool's questions so far, by key, each the client's response as JSON. */
  readonly inputResponses?: Readonly<Record<string, string>>;
  /** Fresh delegated tokens for the call while it runs (a call run as an MCP task); none for a plain call. */
  readonly renewals?: TokenRenewals;
}

/** How a call ended: a result (a tool error among them), the questions it waits on, or a refusal status. */
export type ToolCallOutcome = { readonly result: ToolResultMessage } | { readonly inputRequired: InputRequired } | { readonly refusal: ToolCallError };

/** The tools, the caller check and the platform clients a runner uses. */
export interface ToolRunnerOptions extends PlatformApiOptions {
  readonly tools: readonly ToolDefinition[];
  /** The caller check: only tokens delegated to this app, issued for the platform API. */
  readonly checkCaller: CallerCheck;
  readonly logger: Logger;
  /** Told how each call ended and how long it took: the service's metrics. */
  readonly observer?: ToolCallObserver;
}

/** Runs tool calls: the caller check, the schema, the permission, then the handler. */
export interface ToolRunner {
  /** The tools as ListTools answers them, in the order they were registered. */
  readonly listing: readonly Tool[];
  /** Serves these tools from now on: a call already running keeps its tool. */
  setTools(tools: readonly ToolDefinition[]): void;
  /** The call's outcome: a result (a tool error among them), its questions, or a refusal with its gRPC status; `events` hears its progress and log messages. */
  call(call: ToolCall, events?: CallEvents): Promise<ToolCallOutcome>;
}

/** Refusals that are this side's failure, not the caller's: the server span is marked failed. */
const serverFaults: ReadonlySet<string> = new Set(['INTERNAL', 'UNAVAILABLE', 'DEADLINE_EXCEEDED']);

const requestIdPattern = /^[\w.:-]{1,128}$/;

const taskSupportMessages = {
  forbidden: 'TASK_SUPPORT_FORBIDDEN',
  optional: 'TASK_SUPPORT_OPTIONAL',
  required: 'TASK_SUPPORT_REQUIRED',
} as const satisfies Record<ToolTaskSupport, TaskSupport>;

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
    timeoutMs: tool.timeoutMs ?? 0,
    taskSupport: taskSupportMessages[tool.taskSupport],
  };
}

/** Longest details of a refusal, in its status and its log line, whatever the input. */
export const maxDetailLength = 1_024;
const maxNesting = 64;

/** `companyId: must be ...; name: is required`, short enough for any gRPC status. */
function describeProblems(problems: readonly string[]): string {
  const shown = problems.slice(0, 5).map((problem) => problem.slice(0, 264));
  return clip(`${shown.join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}`, maxDetailLength);
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
  const checked = tool.checkInput(raw);
  if (!checked.ok) throw new ToolCallError('INVALID_ARGUMENT', describeProblems(checked.problems));
  return checked.value;
}

/** The result message of what a handler returned: a `toolResult`, or a JSON object as structured content. */
function resultOf(tool: ToolDefinition, value: unknown): ToolResultMessage {
  if (isToolResultValue(value)) {
    const message = resultMessageOf(value);
    if (!message.isError && tool.outputSchema !== undefined) {
      if (value.structuredContent === undefined) throw new TypeError(`tool ${tool.name} declares an outputSchema but returned no structuredContent`);
      const checked = tool.checkOutput(value.structuredContent);
      if (!checked.ok) throw new TypeError(`tool ${tool.name} returned structured content its outputSchema refuses: ${describeProblems(checked.problems)}`);
    }
    return message;
  }
  const checked = tool.checkOutput(value);
  if (!checked.ok) throw new TypeError(`tool ${tool.name} returned a result its outputSchema refuses: ${describeProblems(checked.problems)}`);
  const result = checked.value;
  if (result === null || typeof result !== 'object' || Array.isArray(result))
    throw new TypeError(`tool ${tool.name} returned something other than a JSON object or a toolResult`);
  // No content blocks: the gateway shows the structured content as text to clients that read only text.
  return { content: [], structuredContentJson: JSON.stringify(result), isError: false };
}

/** The MCP level of a wire log level; undefined for none. */
function levelOf(level: string | undefined): ClientLogLevel | undefined {
  const name = level?.replace(/^LOG_LEVEL_/, '').toLowerCase();
  return (clientLogLevels as readonly string[]).includes(name ?? '') ? (name as ClientLogLevel) : undefined;
}

/** What the client can take, from the request; the shared "nothing" when it said nothing. */
function clientOf(abilities: ClientAbilities__Output | null | undefined): CallClient {
  if (!abilities) return noClient;
  return Object.freeze({
    progress: abilities.progress,
    logLevel: levelOf(abilities.logLevel),
    elicitation: Object.freeze({ form: abilities.elicitationForm, url: abilities.elicitationUrl }),
    sampling: abilities.sampling,
    roots: abilities.roots,
  });
}

/** A `ToolRunner` over the given tools. */
export function createToolRunner(options: ToolRunnerOptions): ToolRunner {
  const { checkCaller, logger, apiBaseUrl, platformApiBaseUrls, httpTimeoutMs, fetch } = options;
  // Each tool with its handler's span, whose name and attributes are made once, not on every call.
  const indexed = (tools: readonly ToolDefinition[]) =>
    new Map(
      tools.map((tool) => [
        tool.name,
        {
          tool,
          spanName: `execute_tool ${tool.name}`,
          spanOptions: { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool.name } },
        },
      ]),
    );
  let byName = indexed(options.tools);
  let listing = Object.freeze(options.tools.map(toolMessage));

  const call = (request: ToolCall, events?: CallEvents): Promise<ToolCallOutcome> =>
    inSpan(toolCallSpanName, toolCallAttributes(request.traceContext), (span) => run(request, events, span));

  const run = async (request: ToolCall, events: CallEvents | undefined, span: Span): Promise<ToolCallOutcome> => {
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

      // A task's token follows the gateway's renewals, each checked as the call's own token was.
      let token: string | (() => string) = credential.token;
      if (request.renewals) {
        const renewable = createRenewableToken({ token, callerId, checkCaller, logger, logFields: { requestId, tool: tool.name } });
        request.renewals.listen(renewable.renew);
        token = renewable.current;
      }
      const interrupted = interruption(request.signal);
      // Made at the first question: most calls ask none.
      let questions: Questions | undefined;
      const questionsOfCall = () =>
        (questions ??= createQuestions({ answers: new Map(Object.entries(request.inputResponses ?? {})), onAsked: interrupted.asked }));
      let taskStarted = false;
      const startTask = () => {
        if (taskStarted) return;
        taskStarted = true;
        events?.taskStarted?.();
      };
      const ctx = createCallContext({
        startTask,
        client: clientOf(request.client),
        ...(events && { events }),
        questions: questionsOfCall,
        token,
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
      // A task starts with its handler (questions from here on are put to the person inside the
      // task), or where the handler says so.
      if (tool.taskStart === 'handler') startTask();
      let value: unknown;
      try {
        value = await inSpan(found.spanName, found.spanOptions, () => untilInterrupted(tool.handler(args as never, ctx), interrupted.promise));
      } catch (error) {
        // A run that threw after asking (its own timeout, say) still ends with its questions.
        if (!questions || questions.pending.size === 0) throw error;
      }
      if (questions && questions.pending.size > 0) return settle({ inputRequired: { requests: Object.fromEntries(questions.pending) } });
      request.signal.throwIfAborted();
      return settle({ result: resultOf(tool, value) });
    } catch (error) {
      return settle(outcomeOf(error, request.signal), error);
    }

    function settle(outcome: ToolCallOutcome, error?: unknown): ToolCallOutcome {
      const seconds = (performance.now() - started) / 1000;
      const label = 'result' in outcome ? (outcome.result.isError ? 'tool_error' : 'ok') : 'inputRequired' in outcome ? 'input_required' : outcome.refusal.code;
      if (span.isRecording()) {
        // All at once, at the end: each attribute set on its own is checked and copied on its own.
        span.setAttributes({
          ...(callerId !== undefined && { 'enduser.id': callerId }),
          ...(byName.has(request.name) && { 'gen_ai.tool.name': request.name }),
          'platform.outcome': label,
          'rpc.grpc.status_code': 'refusal' in outcome ? toolCallCatalog[outcome.refusal.code].status : 0,
        });
        if ('refusal' in outcome && serverFaults.has(outcome.refusal.code)) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      options.observer?.called(byName.has(request.name) ? request.name : 'unknown', label, seconds);
      const isError = 'refusal' in outcome && outcome.refusal.code === 'INTERNAL';
      // A line that is not written costs nothing: its fields are made only for one that is.
      if (!logger.isLevelEnabled(isError ? 'error' : 'info')) return outcome;
      const fields = { requestId, tool: request.name.slice(0, 64), callerId, durationMs: Math.round(seconds * 10_000) / 10 };
      if (!('refusal' in outcome)) {
        logger.info({ ...fields, outcome: label }, 'tool call');
      } else if (outcome.refusal.code === 'INTERNAL') {
        logger.error({ ...fields, outcome: 'INTERNAL', err: error }, 'tool call failed unexpectedly');
      } else {
        logger.info({ ...fields, outcome: outcome.refusal.code, reason: clip(outcome.refusal.message, maxDetailLength) }, 'tool call refused');
      }
      return outcome;
    }
  };

  return {
    get listing() {
      return listing;
    },
    setTools(tools) {
      byName = indexed(tools);
      listing = Object.freeze(tools.map(toolMessage));
    },
    call,
  };
}
