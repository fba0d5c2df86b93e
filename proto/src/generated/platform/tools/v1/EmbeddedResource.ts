// Original file: platform/tools/v1/tool_service.proto


/**
 * MCP `resource`: a resource's contents, text or bytes, carried in the result.
 */
export interface EmbeddedResource {
  'uri'?: (string);
  'mimeType'?: (string);
  'text'?: (string);
  /**
   * Sent to the client as base64.
   */
  'blob'?: (Buffer | Uint8Array | string);
  'contents'?: "text"|"blob";
}

/**
 * MCP `resource`: a resource's contents, text or bytes, carried in the result.
 */
export interface EmbeddedResource__Output {
  'uri': (string);
  'mimeType': (string);
  'text'?: (string);
  /**
   * Sent to the client as base64.
   */
  'blob'?: (Buffer);
  'contents'?: "text"|"blob";
}
