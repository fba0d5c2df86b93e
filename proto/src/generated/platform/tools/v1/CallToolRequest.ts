// Original file: platform/tools/v1/tool_service.proto


export interface CallToolRequest {
  /**
   * The tool to run, as listed by ListTools.
   */
  'name'?: (string);
  /**
   * The arguments object, as a JSON string ("{}" for none).
   */
  'argumentsJson'?: (string);
  /**
   * Correlation id of the MCP request, repeated in the tool service's logs.
   */
  'requestId'?: (string);
}

export interface CallToolRequest__Output {
  /**
   * The tool to run, as listed by ListTools.
   */
  'name': (string);
  /**
   * The arguments object, as a JSON string ("{}" for none).
   */
  'argumentsJson': (string);
  /**
   * Correlation id of the MCP request, repeated in the tool service's logs.
   */
  'requestId': (string);
}
