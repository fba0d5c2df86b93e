// Original file: platform/tools/v1/tool_service.proto

import type { ContentBlock as _platform_tools_v1_ContentBlock, ContentBlock__Output as _platform_tools_v1_ContentBlock__Output } from '../../../platform/tools/v1/ContentBlock.ts';

/**
 * A tool's final answer: MCP `CallToolResult`.
 */
export interface ToolResult {
  'content'?: (_platform_tools_v1_ContentBlock)[];
  /**
   * MCP `structuredContent`: a JSON object as a string; empty for none. On an error result
   * (is_error) it holds {"code": ..., "message": ..., ...details}, which the gateway shows the
   * client in the result's `_meta`, not as structured content.
   */
  'structuredContentJson'?: (string);
  /**
   * True when the tool ran and reports a failure the agent should see (MCP `isError`).
   */
  'isError'?: (boolean);
}

/**
 * A tool's final answer: MCP `CallToolResult`.
 */
export interface ToolResult__Output {
  'content': (_platform_tools_v1_ContentBlock__Output)[];
  /**
   * MCP `structuredContent`: a JSON object as a string; empty for none. On an error result
   * (is_error) it holds {"code": ..., "message": ..., ...details}, which the gateway shows the
   * client in the result's `_meta`, not as structured content.
   */
  'structuredContentJson': (string);
  /**
   * True when the tool ran and reports a failure the agent should see (MCP `isError`).
   */
  'isError': (boolean);
}
