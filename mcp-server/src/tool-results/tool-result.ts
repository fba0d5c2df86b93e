// The one mapper of the gateway's MCP edge for tool calls: what a tool service answered (or that no
// delegated token could be had, or that the service did not answer) becomes an MCP CallToolResult
// every client can read. A result is shown as the tool produced it once it is within the size
// limit, nests no deeper than a limit, its content blocks are ones MCP knows (content-blocks.ts),
// its structured content matches the output schema the service published, and every string of it,
// structured content's keys and values included, is cleaned of controls (shown-text.ts). Every
// failure is an `isError` result whose text tells the agent what to do next and whose `_meta`
// carries a stable `code`; it never carries structured content, which clients check against the
// tool's output schema (the v1 SDK even on errors). An outage is never reported as the caller's
// fault, and no internals of a failure are shown.
import { status } from '@grpc/grpc-js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolResult__Output } from '@platform/proto';
import { isPlatformError } from '@platform/tool-sdk';
import { clip, nestsDeeperThan, oneLine } from '@platform/tool-sdk/internal';
import { delegationErrorCodes, isDelegationError } from '../delegation/index.ts';
import type { RemoteTool, ToolServiceAnswer } from '../remote-tools.ts';
import { answerTooLarge } from '../tool-services/index.ts';
import { contentBytes, mcpContentOf, UnshowableBlock } from './content-blocks.ts';
import { checkOutput } from './output-check.ts';
import { ShownKeyCollision, shownJson, shownText } from './shown-text.ts';

export interface ToolResultOptions {
  /** The call's deadline in milliseconds, named when the tool did not finish within it. */
  readonly timeoutMs?: number;
  /** The gateway's maximum (TOOL_CALL_TIMEOUT_MS), which caps a tool's own limit: named with it. */
  readonly maxTimeoutMs?: number;
  /** Largest result shown (its JSON and its text together), in bytes (MCP_MAX_TOOL_RESULT_BYTES). Default 1 MiB. */
  readonly maxResultBytes?: number;
}

/** Where a failure's stable code and details are, in a result's `_meta`. */
export const errorMetaKey = 'platform/error';
/** What of a tool's own failure object `_meta` repeats: a few short values. */
const maxMetaEntries = 16;
const maxMetaValueLength = 256;

/** Longest text of a tool service's status details shown to the agent. */
const maxDetails = 1_024;
/** Deepest structured content shown: far beyond any real result, well within what serializing it takes. */
export const maxResultNesting = 64;

/** A finished call's answer: its result, or the gRPC status it failed with. */
export type FinishedAnswer = Exclude<ToolServiceAnswer, { readonly inputRequired: unknown }>;

/** The MCP result of a tool service's answer: its result, its own `is_error` failure, or its gRPC status. */
export function toolResult(answer: FinishedAnswer, tool: RemoteTool, options: ToolResultOptions = {}): CallToolResult {
  const maxResultBytes = options.maxResultBytes ?? 1024 * 1024;
  if (!answer.ok) {
    if (answer.details === answerTooLarge) return tooLarge(tool, maxResultBytes);
    if (answer.tlsRefusal !== undefined) return untrusted(tool, answer.tlsRefusal);
    return statusResult(answer.code, answer.details, tool, options);
  }
  return resultOf(answer.result, tool, maxResultBytes);
}

function resultOf(result: ToolResult__Output, tool: RemoteTool, maxResultBytes: number): CallToolResult {
  const structuredJson = result.structuredContentJson;
  if (Buffer.byteLength(structuredJson) + contentBytes(result.content) > maxResultBytes) return tooLarge(tool, maxResultBytes);
  const parsed = parseJson(structuredJson);
  if (parsed !== unreadableJson && parsed !== undefined && nestsDeeperThan(parsed, maxResultNesting)) {
    return unreadable(tool, `a result nested deeper than ${maxResultNesting} levels`);
  }
  let content: CallToolResult['content'];
  let structured: Record<string, unknown> | undefined;
  try {
    content = result.content.length === 0 ? [] : mcpContentOf(result.content);
    structured = isJsonObject(parsed) ? (shownJson(parsed) as Record<string, unknown>) : undefined;
  } catch (error) {
    if (error instanceof UnshowableBlock || error instanceof ShownKeyCollision) return unreadable(tool, `a result that cannot be shown (${error.message})`);
    throw error;
  }

  if (result.isError) {
    // The tool's own words stand even when its structured part cannot be read; its code and
    // details go to `_meta`, never to structured content its output schema would refuse.
    const said = textOf(content) || (typeof structured?.message === 'string' ? structured.message : '');
    if (said.trim() === '') return unreadable(tool);
    const shown = content.some((block) => block.type === 'text') ? content : [{ type: 'text' as const, text: said }, ...content];
    return { content: shown, isError: true, ...(structured && { _meta: { [errorMetaKey]: metaOf(structured) } }) };
  }
  if (parsed === unreadableJson) return unreadable(tool);
  // A declared result schema is an object's: anything else breaks the tool's own contract.
  if (structured === undefined && tool.outputSchema !== undefined) return unreadable(tool, 'not the object its result schema declares');
  const checked = structured === undefined ? undefined : checkOutput(tool, structured);
  if (checked && !checked.valid) {
    return failureResult(
      'OFF_SCHEMA_RESULT',
      `The service ${tool.service.serviceName} (app ${tool.service.appClientId}) answered the tool ${tool.exposedName} with a result that does not match ` +
        `the tool's output schema (${clip(sentence(checked.problem), 300)}), so its result is unknown. ${mayHaveRun(tool)}`,
    );
  }
  // Structured content without blocks is shown as its JSON too, for clients that read text only:
  // the service's own JSON when nothing in it needed cleaning (JSON escapes the controls it can).
  if (content.length === 0 && structuredJson.trim() !== '') {
    const text = structured === undefined ? shownText(structuredJson) : structured === parsed ? shownText(structuredJson) : JSON.stringify(structured);
    content = [{ type: 'text', text }];
  }
  return { content, ...(structured && { structuredContent: structured }) };
}

/** The text blocks of a result, joined. */
function textOf(content: CallToolResult['content']): string {
  return content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

/** The result when no delegated token could be had: the tool service was not called. */
export function delegationFailure(error: unknown, tool: RemoteTool): CallToolResult {
  const [reason, why] = isDelegationError(error)
    ? [error.code, error.message]
    : isPlatformError(error)
      ? ['PLATFORM_UNAVAILABLE', delegationErrorCodes.PLATFORM_UNAVAILABLE]
      : ['UNEXPECTED', "the gateway failed unexpectedly while asking for it. Try again later; if it persists, tell the gateway's operator."];
  return failureResult('NO_DELEGATED_TOKEN', `No delegated token could be obtained, so the tool ${tool.exposedName} was not called: ${why}`, { reason });
}

/** What a status message may say: the tool, the service's details as one sentence, and the call's deadline. */
interface RefusedCall {
  readonly tool: RemoteTool;
  readonly name: string;
  readonly details: string;
  readonly timeoutMs: number | undefined;
  readonly maxTimeoutMs: number | undefined;
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
  [status.DEADLINE_EXCEEDED, ['DEADLINE_EXCEEDED', (call) => `The tool ${call.name} did not finish within ${timeLimit(call)}. ${mayHaveRun(call.tool)}`]],
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

/** Which time limit a call passed: the tool's own, or the gateway's maximum (which caps the tool's). */
function timeLimit({ tool, timeoutMs, maxTimeoutMs }: RefusedCall): string {
  if (timeoutMs === undefined) return "the gateway's time limit";
  if (maxTimeoutMs === undefined) return `${timeoutMs} ms`;
  if (tool.timeoutMs !== undefined && tool.timeoutMs <= maxTimeoutMs) {
    return `${timeoutMs} ms, the time limit the tool declares (the gateway allows at most ${maxTimeoutMs} ms)`;
  }
  const asked = tool.timeoutMs === undefined ? '' : `, which caps the tool's own ${tool.timeoutMs} ms`;
  return `${timeoutMs} ms, the gateway's time limit (TOOL_CALL_TIMEOUT_MS${asked})`;
}

/** Anything else: no internals, for the service has logged them. */
const unexpected = ({ name }: RefusedCall) =>
  `The tool ${name} failed unexpectedly; its service logged the cause. Try again later; if it fails again, tell the tool's operator.`;

function statusResult(code: number, details: string, tool: RemoteTool, options: ToolResultOptions): CallToolResult {
  const [resultCode, message] = statusCatalog.get(code) ?? ['TOOL_FAILED', unexpected];
  return failureResult(
    resultCode,
    message({ tool, name: tool.exposedName, details: sentence(details), timeoutMs: options.timeoutMs, maxTimeoutMs: options.maxTimeoutMs }),
  );
}

function tooLarge(tool: RemoteTool, maxResultBytes: number): CallToolResult {
  return failureResult(
    'RESULT_TOO_LARGE',
    `The service ${tool.service.serviceName} answered the tool ${tool.exposedName} with a result larger than the gateway passes on ` +
      `(${maxResultBytes} bytes, MCP_MAX_TOOL_RESULT_BYTES). Ask for less (a narrower query, a smaller page) and try again. ${mayHaveRun(tool)}`,
  );
}

/** No call was made: the TLS handshake with the service failed, so the delegated token never left the gateway. */
function untrusted(tool: RemoteTool, reason: string): CallToolResult {
  return failureResult(
    'TOOL_SERVICE_UNTRUSTED',
    `The tool ${tool.exposedName} was not called: the gateway could not set up a trusted connection to its service (${tool.service.serviceName}): ${reason}. ` +
      "Nothing was sent to it. This is a configuration problem of the gateway or the service, not of your request; tell the gateway's operator.",
  );
}

function unreadable(tool: RemoteTool, what = 'something unreadable'): CallToolResult {
  return failureResult('UNREADABLE_RESULT', `The service of the tool ${tool.exposedName} answered ${what}, so its result is unknown. ${mayHaveRun(tool)}`);
}

/** Whether calling again is safe, by the tool's own hints, after a call whose outcome is unknown. */
function mayHaveRun(tool: RemoteTool): string {
  if (tool.annotations.readOnlyHint) return 'The tool only reads, so calling it again is safe.';
  if (tool.annotations.idempotentHint) return 'It may or may not have taken effect; calling it again with the same arguments is safe.';
  return 'It may or may not have taken effect: check before calling it again.';
}

/** A failure the agent reads: `message` as text, and `code` (with `extra`) in `_meta`. */
export function failureResult(code: string, message: string, extra: Readonly<Record<string, string>> = {}): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true, _meta: { [errorMetaKey]: { code, ...extra } } };
}

/** A tool's failure object as `_meta` repeats it: its first few values that are short text, numbers or booleans, cleaned. */
function metaOf(failed: Readonly<Record<string, unknown>>): Record<string, string | number | boolean | null> {
  const meta: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(failed)) {
    if (Object.keys(meta).length >= maxMetaEntries) break;
    if (key === 'message' || key.length > 64) continue;
    if (typeof value === 'string') meta[shownText(key)] = clip(shownText(value), maxMetaValueLength);
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null) meta[shownText(key)] = value;
  }
  return meta;
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
  const line = oneLine(shownText(details));
  if (line === '') return '';
  const clipped = clip(line, maxDetails);
  return /[.!?…]$/.test(clipped) ? clipped : `${clipped}.`;
}
