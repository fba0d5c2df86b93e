// The one mapper of the gateway's MCP edge for tool calls: what a tool service answered (or that no
// delegated token could be had, or that the service did not answer) becomes an MCP CallToolResult.
// A result the tool produced passes through as it is; every failure is an `isError` result whose
// message tells the agent what to do next, with a stable `code` in its structured content. An
// outage is never reported as the caller's fault, and no internals of a failure are shown.
import { status } from '@grpc/grpc-js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { clip, isPlatformError, oneLine } from '@platform/shared';
import { delegationErrorCodes, isDelegationError } from '../delegation/index.ts';
import type { RemoteTool, ToolServiceAnswer } from '../remote-tools.ts';

export interface ToolResultOptions {
  /** The call's deadline in milliseconds, named when the tool did not finish within it. */
  readonly timeoutMs?: number;
}

/** Longest text of a tool service's status details shown to the agent. */
const maxDetails = 1_024;

/** The MCP result of a tool service's answer: its result, its own `is_error` failure, or its gRPC status. */
export function toolResult(answer: ToolServiceAnswer, tool: RemoteTool, options: ToolResultOptions = {}): CallToolResult {
  if (!answer.ok) return statusResult(answer.code, answer.details, tool, options);
  const parsed = parseJson(answer.resultJson);
  const structured = isJsonObject(parsed) ? parsed : undefined;
  const text = answer.text !== '' ? answer.text : answer.resultJson;

  if (answer.isError) {
    // The tool's own words stand even when its structured part cannot be read.
    if (answer.text === '' && structured === undefined) return unreadable(tool);
    return { content: [{ type: 'text', text }], ...(structured && { structuredContent: structured }), isError: true };
  }
  if (parsed === unreadableJson) return unreadable(tool);
  // A declared result schema is an object's: anything else breaks the tool's own contract.
  if (structured === undefined && tool.outputSchema !== undefined) return unreadable(tool, 'not the object its result schema declares');
  return { content: text === '' ? [] : [{ type: 'text', text }], ...(structured && { structuredContent: structured }) };
}

/** The result when no delegated token could be had: the tool service was not called. */
export function delegationFailure(error: unknown, tool: RemoteTool): CallToolResult {
  const [reason, why] = isDelegationError(error)
    ? [error.code, error.message]
    : isPlatformError(error)
      ? ['PLATFORM_UNAVAILABLE', delegationErrorCodes.PLATFORM_UNAVAILABLE]
      : ['UNEXPECTED', "the gateway failed unexpectedly while asking for it. Try again later; if it persists, tell the gateway's operator."];
  return failure('NO_DELEGATED_TOKEN', `No delegated token could be obtained, so the tool ${tool.exposedName} was not called: ${why}`, { reason });
}

/** What a status message may say: the tool, the service's details as one sentence, and the call's deadline. */
interface RefusedCall {
  readonly tool: RemoteTool;
  readonly name: string;
  readonly details: string;
  readonly timeoutMs: number | undefined;
}

/** Every gRPC status a call may end with, by its code in the result and its message; others are TOOL_FAILED. */
const statusCatalog: ReadonlyMap<number, readonly [code: string, message: (call: RefusedCall) => string]> = new Map([
  [
    status.PERMISSION_DENIED,
    [
      'PERMISSION_DENIED',
      ({ tool, name, details }) => {
        const app = tool.service.appClientId;
        const refusal = details
          ? `${details} Both the person and the app ${app} must hold it there.`
          : `the person and the app ${app} do not both hold ${tool.requiresPermission ?? 'the permission it needs'} at the company concerned.`;
        return `The tool ${name} was refused: ${refusal} An administrator can grant the person a role that has it, or the app's consent; retrying will not help until then.`;
      },
    ],
  ],
  [
    status.UNAUTHENTICATED,
    [
      'UNAUTHENTICATED',
      // The gateway already exchanged once more: what is left is a revoked sign-in, or a service at
      // that address that runs as another app than the one that registered the tool.
      ({ tool, name }) =>
        `The service of the tool ${name} did not accept the token delegated to the app ${tool.service.appClientId} for this call: ` +
        `your sign-in may have expired or been revoked, or the service at that address does not run as ${tool.service.appClientId}. ` +
        'Try again; if it repeats, sign in again, and if that does not help, tell the tool’s operator.',
    ],
  ],
  [
    status.INVALID_ARGUMENT,
    [
      'INVALID_ARGUMENT',
      ({ name, details }) =>
        `The arguments do not fit the tool ${name}: ${details || 'they do not match its input schema.'} Fix the arguments and call it again.`,
    ],
  ],
  [
    status.NOT_FOUND,
    [
      'NOT_FOUND',
      ({ tool, name }) => `The tool ${name} is no longer known to its service (${tool.service.serviceName}); the tool list may be stale. List the tools again.`,
    ],
  ],
  [
    status.UNAVAILABLE,
    [
      'UNAVAILABLE',
      ({ name }) =>
        `The tool ${name} could not be run: its service or the platform is unavailable right now. This is an outage, not a problem with your request; try again later.`,
    ],
  ],
  [
    status.DEADLINE_EXCEEDED,
    [
      'DEADLINE_EXCEEDED',
      ({ tool, name, timeoutMs }) =>
        `The tool ${name} did not finish ${timeoutMs === undefined ? "within the gateway's time limit" : `within ${timeoutMs} ms`}. ${mayHaveRun(tool)}`,
    ],
  ],
  [
    status.RESOURCE_EXHAUSTED,
    [
      'RESOURCE_EXHAUSTED',
      ({ name }) =>
        `The call to ${name} was larger than the gateway and its service accept (its arguments, or its result). Send smaller arguments, or ask for less, and try again.`,
    ],
  ],
  [status.CANCELLED, ['CANCELLED', ({ tool, name }) => `The call to ${name} was cancelled before it finished. ${mayHaveRun(tool)}`]],
]);

/** Anything else: no internals, for the service has logged them. */
const unexpected = ({ name }: RefusedCall) =>
  `The tool ${name} failed unexpectedly; its service logged the cause. Try again later; if it fails again, tell the tool's operator.`;

function statusResult(code: number, details: string, tool: RemoteTool, options: ToolResultOptions): CallToolResult {
  const [resultCode, message] = statusCatalog.get(code) ?? ['TOOL_FAILED', unexpected];
  return failure(resultCode, message({ tool, name: tool.exposedName, details: sentence(details), timeoutMs: options.timeoutMs }));
}

function unreadable(tool: RemoteTool, what = 'something unreadable'): CallToolResult {
  return failure('UNREADABLE_RESULT', `The service of the tool ${tool.exposedName} answered ${what}, so its result is unknown. ${mayHaveRun(tool)}`);
}

/** Whether calling again is safe, by the tool's own hints, after a call whose outcome is unknown. */
function mayHaveRun(tool: RemoteTool): string {
  if (tool.annotations.readOnlyHint) return 'The tool only reads, so calling it again is safe.';
  if (tool.annotations.idempotentHint) return 'It may or may not have taken effect; calling it again with the same arguments is safe.';
  return 'It may or may not have taken effect: check before calling it again.';
}

function failure(code: string, message: string, extra: Readonly<Record<string, string>> = {}): CallToolResult {
  return { content: [{ type: 'text', text: message }], structuredContent: { code, message, ...extra }, isError: true };
}

const unreadableJson = Symbol('unreadable JSON');

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return unreadableJson;
  }
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A service's status details as one short sentence: on one line, clipped, ending with a full stop. */
function sentence(details: string): string {
  const line = oneLine(details);
  if (line === '') return '';
  const clipped = clip(line, maxDetails);
  return /[.!?…]$/.test(clipped) ? clipped : `${clipped}.`;
}
