// Original file: platform/tools/v1/tool_service.proto


/**
 * MCP annotations of a content block: hints for the client.
 */
export interface Annotations {
  /**
   * Who the block is for: "user", "assistant" or both; empty for unspecified.
   */
  'audience'?: (string)[];
  /**
   * How important it is, 0 to 1; absent when unspecified.
   */
  'priority'?: (number | string);
  /**
   * When it was last modified, ISO 8601; empty when unknown.
   */
  'lastModified'?: (string);
  '_priority'?: "priority";
}

/**
 * MCP annotations of a content block: hints for the client.
 */
export interface Annotations__Output {
  /**
   * Who the block is for: "user", "assistant" or both; empty for unspecified.
   */
  'audience': (string)[];
  /**
   * How important it is, 0 to 1; absent when unspecified.
   */
  'priority'?: (number);
  /**
   * When it was last modified, ISO 8601; empty when unknown.
   */
  'lastModified': (string);
  '_priority'?: "priority";
}
