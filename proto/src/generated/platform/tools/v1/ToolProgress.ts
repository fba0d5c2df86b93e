// Original file: platform/tools/v1/tool_service.proto


/**
 * MCP `notifications/progress`: how far the call is. progress increases from one event to the next.
 */
export interface ToolProgress {
  'progress'?: (number | string);
  /**
   * The total, when known.
   */
  'total'?: (number | string);
  /**
   * A short sentence for the person, optional.
   */
  'message'?: (string);
  '_total'?: "total";
}

/**
 * MCP `notifications/progress`: how far the call is. progress increases from one event to the next.
 */
export interface ToolProgress__Output {
  'progress': (number);
  /**
   * The total, when known.
   */
  'total'?: (number);
  /**
   * A short sentence for the person, optional.
   */
  'message': (string);
  '_total'?: "total";
}
