// The one error mapper of the tool service's gRPC edge. A tool's expected failure is an answer the
// agent reads; a refusal keeps its status; a platform outage is UNAVAILABLE, never the caller's
// fault; the deadline is DEADLINE_EXCEEDED; anything else is INTERNAL with a generic message (the
// cause goes to the log, never over the wire).
import type { ToolResult } from '@platform/proto';
import { isPlatformError } from '../errors/platform-error.ts';
import { ToolCallError, ToolError } from './tool-errors.ts';
import type { ToolCallOutcome } from './tool-runner.ts';

/** The result of a ToolError: is_error, the message as text, `{code, message, ...details}` for the result's `_meta`. */
function toolErrorResult(error: ToolError): ToolResult {
  return {
    content: [{ text: error.message }],
    structuredContentJson: JSON.stringify({ ...error.details, code: error.code, message: error.message }),
    isError: true,
  };
}

export function outcomeOf(error: unknown, signal: AbortSignal): ToolCallOutcome {
  if (signal.aborted && signal.reason instanceof ToolCallError) return { refusal: signal.reason };
  if (error instanceof ToolError) return { result: toolErrorResult(error) };
  if (error instanceof ToolCallError) return { refusal: error };
  if (isPlatformError(error, 'PLATFORM_UNAVAILABLE') || isPlatformError(error, 'PLATFORM_BAD_RESPONSE')) {
    return { refusal: new ToolCallError('UNAVAILABLE', error.message, { cause: error }) };
  }
  return { refusal: new ToolCallError('INTERNAL', undefined, { cause: error }) };
}
