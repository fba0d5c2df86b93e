// The gateway's mapping of tool-service answers, and of calls that could not be made, to MCP tool results.
export { delegationFailure, errorMetaKey, failureResult, maxResultNesting, toolResult, type FinishedAnswer, type ToolResultOptions } from './tool-result.ts';
export { compileOutputCheck } from './output-check.ts';
