// Original file: platform/registry/v1/tool_registry.proto


export interface DeregisterRequest {
  /**
   * As returned by Register.
   */
  'registrationId'?: (string);
}

export interface DeregisterRequest__Output {
  /**
   * As returned by Register.
   */
  'registrationId': (string);
}
