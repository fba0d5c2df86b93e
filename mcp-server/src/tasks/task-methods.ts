// The tasks extension's methods on a 2026-07-28 MCP server: tasks/get, tasks/update and
// tasks/cancel, for a client that declares the extension on the request (MCP's -32021 otherwise),
// about the caller's own tasks only. tasks/result and tasks/list, the earlier revision's, are not
// methods of the extension and are not served.
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ClientCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Caller } from '@platform/tool-sdk';
import { z } from 'zod';
import { callerInfoOf } from '../http/require-caller.ts';
import { detailedTask } from './task-outcomes.ts';
import { tasksExtension } from './task-records.ts';
import type { TaskRequester } from './task-runner.ts';
import type { Tasks } from './tasks.ts';

/** The capabilities a client declared on this 2026-07-28 request. */
export function declaredCapabilities(ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
}

/** Whether `declared` includes the tasks extension. */
export function runsTasks(declared: ClientCapabilities | undefined): boolean {
  const extensions = (declared as { extensions?: unknown } | undefined)?.extensions;
  return extensions !== null && typeof extensions === 'object' && Object.hasOwn(extensions, tasksExtension);
}

/** MCP's -32021, naming the tasks extension as what the client must declare. */
export const tasksRequired = (message: string) =>
  new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [tasksExtension]: {} } } }, message);

/**
 * The OAuth client a person's token was issued to: its `client_id` claim (RFC 9068's access
 * tokens carry it), read once the platform has accepted the token as it is; '' for a token that is
 * not a JWT. A task belongs to the person and the client together.
 */
export function clientIdOf(token: string): string {
  const payload = token.split('.')[1];
  if (payload === undefined) return '';
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { client_id?: unknown };
    return typeof claims.client_id === 'string' ? claims.client_id : '';
  } catch {
    return '';
  }
}

/** Who asks, on this request. */
export function taskRequesterOf(ctx: ServerContext): TaskRequester & { readonly caller: Caller } {
  const authInfo = ctx.http?.authInfo;
  const info = callerInfoOf(authInfo);
  if (!info || !authInfo) throw new ProtocolError(ProtocolErrorCode.InternalError, 'the request reached the MCP server without a checked caller');
  return {
    owner: { callerId: info.caller.id, clientId: clientIdOf(authInfo.token) },
    caller: info.caller,
    token: authInfo.token,
    requestId: info.requestId,
  };
}

const taskId = z.string().min(1).max(128);

interface TaskMethodsServer {
  setRequestHandler<P extends z.ZodType>(method: string, schemas: { params: P }, handler: (params: z.output<P>, ctx: ServerContext) => unknown): void;
}

/** Registers the extension's methods on `server`. */
export function registerTaskMethods(server: TaskMethodsServer, tasks: Tasks, pollIntervalMs: number): void {
  const requester = (ctx: ServerContext, method: string) => {
    if (!runsTasks(declaredCapabilities(ctx))) throw tasksRequired(`${method} is a method of the tasks extension, which this request does not declare`);
    return taskRequesterOf(ctx);
  };
  server.setRequestHandler('tasks/get', { params: z.object({ taskId }) }, async ({ taskId: id }, ctx) =>
    detailedTask(await tasks.get(id, requester(ctx, 'tasks/get')), pollIntervalMs),
  );
  // The SDK takes a 2026-07-28 request's inputResponses out of its params (ctx.mcpReq.inputResponses), as for any multi round-trip request.
  server.setRequestHandler(
    'tasks/update',
    { params: z.object({ taskId, inputResponses: z.unknown().optional() }) },
    async ({ taskId: id, inputResponses }, ctx) => {
      const who = requester(ctx, 'tasks/update');
      const responses: unknown = ctx.mcpReq.inputResponses ?? inputResponses;
      if (responses === null || typeof responses !== 'object' || Array.isArray(responses))
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid params for tasks/update: inputResponses must be an object of responses by key');
      await tasks.update(id, who, responses as Readonly<Record<string, unknown>>);
      return {};
    },
  );
  server.setRequestHandler('tasks/cancel', { params: z.object({ taskId }) }, async ({ taskId: id }, ctx) => {
    await tasks.cancel(id, requester(ctx, 'tasks/cancel'));
    return {};
  });
}
