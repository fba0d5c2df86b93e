// Original file: platform/tools/v1/tool_service.proto


/**
 * MCP `elicitation/create` in form mode: a message and a flat object schema of primitive fields.
 */
export interface FormElicitation {
  'message'?: (string);
  /**
   * The requested schema, as a JSON object string: the MCP restricted subset (an object whose
   * properties are strings, numbers, integers, booleans or enums).
   */
  'requestedSchemaJson'?: (string);
}

/**
 * MCP `elicitation/create` in form mode: a message and a flat object schema of primitive fields.
 */
export interface FormElicitation__Output {
  'message': (string);
  /**
   * The requested schema, as a JSON object string: the MCP restricted subset (an object whose
   * properties are strings, numbers, integers, booleans or enums).
   */
  'requestedSchemaJson': (string);
}
