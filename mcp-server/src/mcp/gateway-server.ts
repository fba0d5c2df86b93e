// One MCP server instance over the tool gateway: tools/list and tools/call, answered from the live
// catalog for the caller of each request. Built per request (2026-07-28) or per session
// (2025-11-25). The tools are remote, live and per caller, so the two methods are answered at the
// protocol layer (`mcp.server`, the SDK's per-method escape hatch) rather than by registerTool:
// each JSON Schema is listed exactly as its service published it, the list is filtered for the
// caller on every request, and the service validates the arguments against that same schema. A call
// carries what the client can take (its progress token, its log level, its declared capabilities)
// and its answers so far; what the tool reports on the way becomes notifications of the request, and
// its questions an input-required result (question-rounds.ts).
import {
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolRequest,
  type ClientCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ClientAbilities } from '@platform/proto';
import { clip } from '@platform/tool-sdk/internal';
import { callerInfoOf } from '../http/require-caller.ts';
import type { QuestionRounds, Round, StateBinding } from '../questions/index.ts';
import type { RemoteTool, ToolCatalog } from '../remote-tools.ts';
import { createTaskResult } from '../tasks/task-outcomes.ts';
import { registerTaskMethods, runsTasks, taskRequesterOf, tasksRequired } from '../tasks/task-methods.ts';
import { tasksExtension } from '../tasks/task-records.ts';
import type { Tasks } from '../tasks/tasks.ts';
import { inMcpSpan, lookUp } from '../observability/gateway-tracing.ts';
import { requestContextOf } from '../observability/mcp-request-telemetry.ts';
import { createCallNotifications, loggingLevels, type CallNotifications, type LoggingLevel } from './call-notifications.ts';
import type { CallerRequest, ToolCallOutcome, ToolGateway } from './tool-gateway.ts';

const serverInfo = { name: 'platform-mcp-gateway', title: 'Device telemetry platform tools', version: '1.0.0' } as const;

const instructions =
  'Tools of the device-telemetry platform. Each runs on your behalf through its app, with what you and the app may both do; ' +
  'a tool you lack the permission for is not listed. Results that say no delegated token could be obtained mean the tool was not run.';

/** Which revision the instance serves: 2026-07-28 requests, or a 2025-11-25 session. */
export type ServedEra = 'modern' | 'legacy';

export interface GatewayServerOptions {
  readonly gateway: ToolGateway;
  readonly catalog: () => ToolCatalog;
  readonly rounds: QuestionRounds;
  /** Rounds of questions one call may go through (the rounds' own check decides; the SDK's loop for 2025-11-25 allows one more). */
  readonly maxRounds: number;
  readonly era: ServedEra;
  /** MCP tasks (2026-07-28, the tasks extension): tools that support them run as tasks for clients that do. */
  readonly tasks?: { readonly tasks: Tasks; readonly pollIntervalMs: number };
}

/**
 * The gateway's MCP server: its one addition to the SDK's is where the input schema of a tool is,
 * which the SDK's HTTP entry reads to check 2026-07-28's `Mcp-Param-*` headers against a call's
 * arguments (SEP-2243) for a tool it did not register itself.
 */
class GatewayMcpServer extends McpServer {
  readonly #catalog: () => ToolCatalog;

  constructor(catalog: () => ToolCatalog, options: ConstructorParameters<typeof McpServer>[1]) {
    super(serverInfo, options);
    this.#catalog = catalog;
  }

  override toolInputSchemaJson(name: string): Record<string, unknown> | undefined {
    return this.#catalog().byName(name)?.inputSchema;
  }
}

function callerRequest(ctx: ServerContext): CallerRequest {
  const authInfo = ctx.http?.authInfo;
  const info = callerInfoOf(authInfo);
  // The HTTP guard admits no request without a checked caller; this is a wiring fault, not the caller's.
  if (!info || !authInfo) throw new ProtocolError(ProtocolErrorCode.InternalError, 'the request reached the MCP server without a checked caller');
  return { caller: info.caller, token: authInfo.token, requestId: info.requestId, signal: ctx.mcpReq.signal };
}

/** What the client can take, as the tool service is told: progress with a token, a log level, the questions its capabilities cover. */
function abilitiesOf(progressToken: unknown, logLevel: LoggingLevel | undefined, declared: ClientCapabilities | undefined): ClientAbilities {
  const elicitation = declared?.elicitation as Record<string, unknown> | undefined;
  const bare = elicitation !== undefined && elicitation.form === undefined && elicitation.url === undefined;
  return {
    progress: progressToken !== undefined,
    logLevel: logLevel === undefined ? 'LOG_LEVEL_UNSPECIFIED' : (`LOG_LEVEL_${logLevel.toUpperCase()}` as ClientAbilities['logLevel']),
    elicitationForm: elicitation !== undefined && (bare || elicitation.form !== undefined),
    elicitationUrl: elicitation?.url !== undefined,
    sampling: declared?.sampling !== undefined,
    roots: declared?.roots !== undefined,
  };
}

const isLoggingLevel = (value: unknown): value is LoggingLevel => loggingLevels.includes(value as LoggingLevel);

/** A first round: no state to open, no answers. */
const firstRound = Object.freeze({ round: 0, answers: Object.freeze({}) });

export function createGatewayServer(options: GatewayServerOptions): McpServer {
  const { gateway, rounds, era } = options;
  const taskService = era === 'modern' ? options.tasks : undefined;
  const mcp = new GatewayMcpServer(options.catalog, {
    capabilities: { tools: { listChanged: true }, logging: {}, ...(taskService && { extensions: { [tasksExtension]: {} } }) },
    instructions,
    inputRequired: { maxRounds: options.maxRounds + 1 },
  });
  const { server } = mcp;
  // A 2025-11-25 session's log level, set by logging/setLevel; until then every level is sent (the revision's default).
  let sessionLogLevel: LoggingLevel = 'debug';
  if (era === 'legacy') {
    server.setRequestHandler('logging/setLevel', (request) => {
      sessionLogLevel = request.params.level;
      return {};
    });
  }

  if (taskService) registerTaskMethods(server, taskService.tasks, taskService.pollIntervalMs);
  server.setRequestHandler('tools/list', (request, ctx) =>
    inMcpSpan('tools/list', request.params, requestContextOf(ctx.http?.authInfo?.extra), async () => ({ tools: await gateway.list(callerRequest(ctx)) })),
  );
  server.setRequestHandler('tools/call', (request, ctx) =>
    inMcpSpan('tools/call', request.params, requestContextOf(ctx.http?.authInfo?.extra), () => call(request, ctx)),
  );

  /** The progress sent for each request, by its signal: the one object every round of a 2025-11-25 request shares. */
  const progressSent = new WeakMap<AbortSignal, { last: number }>();
  const progressOf = (signal: AbortSignal) => {
    let sent = progressSent.get(signal);
    if (!sent) progressSent.set(signal, (sent = { last: Number.NEGATIVE_INFINITY }));
    return sent;
  };

  const call = async (request: CallToolRequest, ctx: ServerContext) => {
    const { name } = request.params;
    const tool = lookUp(name, () => options.catalog().byName(name));
    // A name belongs to one app for good: a name no live service offers is never sent elsewhere.
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Tool ${clip(name, 128)} not found: no live service offers it now (it may have been withdrawn); list the tools again`,
      );
    }
    const caller = callerRequest(ctx);
    const args = request.params.arguments ?? {};
    const binding = { callerId: caller.caller.id, appClientId: tool.service.appClientId, tool: tool.exposedName, args };
    const requestState = ctx.mcpReq.requestState();
    const { inputResponses } = ctx.mcpReq;
    // Most calls are a first round with nothing to open.
    const round = requestState === undefined && inputResponses === undefined ? firstRound : await rounds.begin(requestState, inputResponses, binding);
    if ('content' in round) return round;

    const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
    const declared =
      era === 'modern'
        ? (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)
        : // The initialize-scoped capabilities are what a 2025-11-25 session declared; the deprecation steers 2026-07-28 requests to their envelope, as above.
          // eslint-disable-next-line @typescript-eslint/no-deprecated
          server.getClientCapabilities();
    const envelopeLevel = envelope?.[LOG_LEVEL_META_KEY];
    const logLevel = era === 'modern' ? (isLoggingLevel(envelopeLevel) ? envelopeLevel : undefined) : sessionLogLevel;
    const progressToken = request.params._meta?.progressToken;
    // A tool that supports tasks runs as one for a client that does (on this request); one that requires them is refused to any other.
    const asTask = taskService !== undefined && tool.taskSupport !== undefined && runsTasks(declared);
    if (era === 'modern' && tool.taskSupport === 'required' && !asTask) {
      throw tasksRequired(`The tool ${tool.exposedName} runs only as an MCP task, and this request does not declare the tasks extension (${tasksExtension}).`);
    }
    if (asTask) {
      const started = await taskService.tasks.start({
        ...taskRequesterOf(ctx),
        tool,
        args,
        // On a task, progress becomes its status message and log messages are not sent (the extension has neither).
        client: { ...abilitiesOf(undefined, undefined, declared), progress: true },
        declared,
        answers: round.answers,
        rounds: round.round,
        signal: ctx.mcpReq.signal,
      });
      if ('task' in started) return createTaskResult(started.task, taskService.pollIntervalMs) as never;
      if ('refused' in started) return started.refused;
      return answered(started.outcome, { round, binding, tool, declared });
    }
    // Made at the call's first event: most calls have none.
    let notifications: CallNotifications | undefined;
    const outcome = await gateway.call(tool, args, {
      ...caller,
      client: abilitiesOf(progressToken, logLevel, declared),
      answers: round.answers,
      onEvent: (event) => {
        notifications ??= createCallNotifications({
          notify: (notification) => ctx.mcpReq.notify(notification),
          progressToken,
          logLevel,
          progressSent: progressOf(ctx.mcpReq.signal),
        });
        notifications.onEvent(event);
      },
    });
    if (notifications) await notifications.flush();
    return answered(outcome, { round, binding, tool, declared });
  };

  /** What the client is answered for a call that ended: its questions put to it, or its result. */
  const answered = (
    outcome: ToolCallOutcome,
    context: { readonly round: Round; readonly binding: StateBinding; readonly tool: RemoteTool; readonly declared: ClientCapabilities | undefined },
  ) => {
    if ('inputRequired' in outcome) return rounds.ask(outcome.inputRequired, { ...context, era });
    return server.projectCallToolResult(outcome.result, context.tool.outputSchema);
  };
  return mcp;
}
