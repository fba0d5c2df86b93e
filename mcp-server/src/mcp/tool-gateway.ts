// The two things an MCP client asks of the gateway, era-blind: which tools this caller may see,
// and run one. A call gets a delegated token for (this person, the tool service's app) and sends
// the tool service only that; when none can be had the tool service is not called and the agent is
// told why. The caller's own token goes to the platform's token endpoint as the subject of the
// exchange and nowhere else. A call ends with its result, or with the questions the tool needs
// answered (question-rounds.ts puts them to the client); its progress and log events are handed on
// as they arrive.
import { status } from '@grpc/grpc-js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { ClientAbilities, InputRequired__Output } from '@platform/proto';
import type { Caller, Logger } from '@platform/tool-sdk';
import type { RemoteTool, ServiceEndpoint, ToolCatalog, ToolServiceAnswer } from '../remote-tools.ts';
import { errorMetaKey, type FinishedAnswer } from '../tool-results/index.ts';
import type { DelegatedToken } from '../delegation/index.ts';
import type { TaskCallSettings, ToolCallEvent, ToolCallRequest } from '../tool-services/index.ts';

/** The share of its lifetime a task's delegated token has left at least, when the call is sent. */
const taskTokenLifeLeft = 0.75;

export interface DelegatedTokenSource {
  get(callerToken: string, service: Pick<ServiceEndpoint, 'appClientId' | 'actorToken'>): Promise<string>;
  /** With its expiry, and fresh enough to have `minLifeLeft` of its lifetime left: a task's token. */
  lease(callerToken: string, service: Pick<ServiceEndpoint, 'appClientId' | 'actorToken'>, minLifeLeft?: number): Promise<DelegatedToken>;
  forget(callerToken: string, appClientId: string, refused?: string): void;
}

export interface ToolGatewayOptions {
  readonly catalog: () => ToolCatalog;
  readonly delegatedTokens: DelegatedTokenSource;
  /** Permissions the caller holds through `appClientId` (person ∩ app) at one company or more. */
  readonly permissionsOf: (delegatedToken: string, appClientId: string) => Promise<ReadonlySet<string>>;
  readonly callTool: (
    address: string,
    request: ToolCallRequest,
    delegatedToken: string,
    options: {
      readonly deadlineMs: number;
      readonly signal?: AbortSignal;
      readonly onEvent?: (event: ToolCallEvent) => void;
      readonly task?: TaskCallSettings;
    },
  ) => Promise<ToolServiceAnswer>;
  readonly toolResult: (answer: FinishedAnswer, tool: RemoteTool, options: { readonly timeoutMs: number; readonly maxTimeoutMs: number }) => CallToolResult;
  readonly delegationFailure: (error: unknown, tool: RemoteTool) => CallToolResult;
  /** Why no delegated token could be had, for the log line: a stable code. */
  readonly failureCode: (error: unknown) => string;
  /** The longest a call may run (TOOL_CALL_TIMEOUT_MS); a tool's own limit is capped by it. */
  readonly callTimeoutMs: number;
  readonly logger: Logger;
  /** Told how each call ended and how long it took: the gateway's metrics. */
  readonly observe?: (tool: string, service: string, outcome: string, seconds: number) => void;
}

export interface CallerRequest {
  readonly caller: Caller;
  /** The person's own token, as presented to this server. */
  readonly token: string;
  readonly requestId: string;
  readonly signal?: AbortSignal;
}

/** A call's request beyond the caller: what the client can take, the answers so far, where events go. */
export interface ToolCallContext extends CallerRequest {
  readonly client?: ClientAbilities;
  /** The answers to the tool's questions so far, by key (each the client's response as JSON). */
  readonly answers?: Readonly<Record<string, string>>;
  /** Told of each progress and log event as it arrives. */
  readonly onEvent?: (event: ToolCallEvent) => void;
  /** Makes it a call the client runs as an MCP task (tasks/task-runs.ts): its hooks. */
  readonly task?: TaskCallHooks;
}

/** What a call run as a task tells, and is given, on the way. */
export interface TaskCallHooks extends TaskCallSettings {
  /** The delegated token the call is sent with, when it is sent: a task runs only while its token lives. */
  readonly onToken: (token: DelegatedToken) => void;
  /** The time limit of the call, from now (a task's, not a plain call's). */
  readonly deadlineMs: number;
}

/**
 * How a call ended: its result (every failure among them, as an `isError` result; `failed` when the
 * tool service produced none: it refused the call, failed or could not be reached), or the
 * questions the tool waits on.
 */
export type ToolCallOutcome = { readonly result: CallToolResult; readonly failed?: true } | { readonly inputRequired: InputRequired__Output };

export interface ToolGateway {
  /** The tools this caller may use, as MCP lists them. */
  list(request: CallerRequest): Promise<Tool[]>;
  /** Runs `tool` for the caller; every failure is an `isError` result the agent can read. */
  call(tool: RemoteTool, args: Record<string, unknown>, request: ToolCallContext): Promise<ToolCallOutcome>;
}

function toMcpTool(tool: RemoteTool): Tool {
  return {
    name: tool.exposedName,
    ...(tool.title !== undefined && { title: tool.title }),
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    ...(tool.outputSchema !== undefined && { outputSchema: tool.outputSchema }),
    annotations: { ...(tool.title !== undefined && { title: tool.title }), ...tool.annotations },
  };
}

/**
 * What a service's answer came to for the client: the tool's own error, a result the gateway would
 * not show (UNREADABLE_RESULT, OFF_SCHEMA_RESULT, RESULT_TOO_LARGE: the code it put in `_meta`), or OK.
 */
function answeredOutcome(toolSaidError: boolean, result: CallToolResult): string {
  if (toolSaidError) return 'TOOL_ERROR';
  if (result.isError !== true) return 'OK';
  const code = (result._meta?.[errorMetaKey] as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'UNSHOWABLE_RESULT';
}

export function createToolGateway(options: ToolGatewayOptions): ToolGateway {
  const { delegatedTokens, logger } = options;
  // Listed tools are built once per catalog, not once per request, and held no longer than the
  // catalog is: the tools of a registration that went are given back with it.
  const listed = new WeakMap<ToolCatalog, Map<RemoteTool, Tool>>();
  const mcpToolsOf = (catalog: ToolCatalog) => {
    let tools = listed.get(catalog);
    if (!tools) listed.set(catalog, (tools = new Map(catalog.tools.map((tool) => [tool, toMcpTool(tool)]))));
    return tools;
  };

  /**
   * What the caller holds through each app, or undefined where that could not be asked (no
   * delegated token, the platform down): then the person's own permissions stand in, an upper
   * bound, so the agent still sees the tool and, calling it, is told what is wrong.
   */
  const heldThrough = async (apps: readonly ServiceEndpoint[], request: CallerRequest) => {
    const held = new Map<string, ReadonlySet<string> | undefined>();
    await Promise.all(
      apps.map(async (service) => {
        try {
          const token = await delegatedTokens.get(request.token, service);
          held.set(service.appClientId, await options.permissionsOf(token, service.appClientId));
        } catch (error) {
          logger.debug({ err: error, app: service.appClientId, callerId: request.caller.id }, 'listing falls back to the person’s own permissions');
          held.set(service.appClientId, undefined);
        }
      }),
    );
    return held;
  };

  return {
    async list(request) {
      const catalog = options.catalog();
      const tools = mcpToolsOf(catalog);
      const needing = catalog.tools.filter((tool) => tool.requiresPermission !== undefined);
      const apps = [...new Map(needing.map((tool) => [tool.service.appClientId, tool.service])).values()];
      const held = apps.length === 0 ? new Map<string, ReadonlySet<string> | undefined>() : await heldThrough(apps, request);
      // The person's own permissions, built only if some app's could not be asked.
      let ownPermissions: ReadonlySet<string> | undefined;
      const personal = () => (ownPermissions ??= new Set(request.caller.companies.flatMap((company) => [...company.permissions])));
      return catalog.tools
        .filter((tool) => {
          if (tool.requiresPermission === undefined) return true;
          const permissions = held.get(tool.service.appClientId) ?? personal();
          return permissions.has(tool.requiresPermission);
        })
        .flatMap((tool) => tools.get(tool) ?? []);
    },

    async call(tool, args, request) {
      const started = performance.now();
      const { service } = tool;
      const log = (outcome: string, extra: Record<string, unknown> = {}) => {
        options.observe?.(tool.exposedName, service.serviceName, outcome.split(':', 1)[0] ?? outcome, (performance.now() - started) / 1000);
        if (!logger.isLevelEnabled('info')) return;
        logger.info(
          {
            requestId: request.requestId,
            callerId: request.caller.id,
            tool: tool.exposedName,
            service: service.serviceName,
            app: service.appClientId,
            outcome,
            durationMs: Math.round(performance.now() - started),
            ...extra,
          },
          'tool call',
        );
      };
      const argumentsJson = JSON.stringify(args);
      const toolRequest: ToolCallRequest = {
        name: tool.name,
        argumentsJson,
        requestId: request.requestId,
        ...(request.client && { client: request.client }),
        ...(request.answers && { inputResponsesJson: request.answers }),
      };
      // The tool's own limit, never past the gateway's maximum.
      const deadlineMs = Math.min(tool.timeoutMs ?? options.callTimeoutMs, options.callTimeoutMs);
      const { task } = request;
      const send = async (retried: boolean): Promise<ToolCallOutcome> => {
        let delegated: string;
        try {
          if (task) {
            // A task's token has most of its life ahead: the task lives only as long as it does, unless renewed.
            const leased = await delegatedTokens.lease(request.token, service, taskTokenLifeLeft);
            task.onToken(leased);
            delegated = leased.value;
          } else delegated = await delegatedTokens.get(request.token, service);
        } catch (error) {
          log(`NO_DELEGATED_TOKEN:${options.failureCode(error)}`, { err: error });
          return { result: options.delegationFailure(error, tool) };
        }
        const answer = await options.callTool(service.callbackAddress, toolRequest, delegated, {
          deadlineMs: task ? task.deadlineMs : deadlineMs,
          ...(request.signal && { signal: request.signal }),
          ...(request.onEvent && { onEvent: request.onEvent }),
          ...(task && { task }),
        });
        // A refused delegated token (revoked, or expired early): nothing ran; drop it and try once more.
        if (!answer.ok && answer.code === (status.UNAUTHENTICATED as number) && !retried) {
          delegatedTokens.forget(request.token, service.appClientId, delegated);
          return send(true);
        }
        if (answer.ok && 'inputRequired' in answer) {
          log('INPUT_REQUIRED');
          return { inputRequired: answer.inputRequired };
        }
        // Logged once the result is checked: its time includes the check, and its outcome is what the client gets.
        const result = options.toolResult(answer, tool, { timeoutMs: task ? task.deadlineMs : deadlineMs, maxTimeoutMs: options.callTimeoutMs });
        if (!answer.ok && answer.tlsRefusal !== undefined) {
          log('TOOL_SERVICE_UNTRUSTED', { address: service.callbackAddress, reason: answer.tlsRefusal });
        } else log(answer.ok ? answeredOutcome(answer.result.isError, result) : (status[answer.code] ?? `CODE_${answer.code}`));
        return answer.ok ? { result } : { result, failed: true };
      };
      return send(false);
    },
  };
}
