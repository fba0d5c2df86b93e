// Original file: platform/tools/v1/tool_service.proto


/**
 * The first revision's answer (CallTool).
 */
export interface CallToolResponse {
  /**
   * The tool's result object as a JSON string (MCP `structuredContent`). When is_error is true it
   * holds {"code": "...", "message": "..."}.
   */
  'resultJson'?: (string);
  /**
   * True when the tool ran and reports a failure the agent should see (MCP `isError`).
   */
  'isError'?: (boolean);
  /**
   * A short text for the agent (MCP text content); empty means the gateway shows result_json.
   */
  'text'?: (string);
}

/**
 * The first revision's answer (CallTool).
 */
export interface CallToolResponse__Output {
  /**
   * The tool's result object as a JSON string (MCP `structuredContent`). When is_error is true it
   * holds {"code": "...", "message": "..."}.
   */
  'resultJson': (string);
  /**
   * True when the tool ran and reports a failure the agent should see (MCP `isError`).
   */
  'isError': (boolean);
  /**
   * A short text for the agent (MCP text content); empty means the gateway shows result_json.
   */
  'text': (string);
}
