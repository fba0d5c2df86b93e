// Original file: platform/registry/v1/tool_registry.proto


export interface HeartbeatRequest {
  /**
   * As returned by Register.
   */
  'registrationId'?: (string);
}

export interface HeartbeatRequest__Output {
  /**
   * As returned by Register.
   */
  'registrationId': (string);
}
