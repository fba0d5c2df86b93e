// Original file: platform/registry/v1/tool_registry.proto


export interface RegisterResponse {
  /**
   * Identifies this registration in Heartbeat and Deregister.
   */
  'registrationId'?: (string);
  /**
   * Granted time to live in seconds; send a Heartbeat well before it passes.
   */
  'ttlSeconds'?: (number);
}

export interface RegisterResponse__Output {
  /**
   * Identifies this registration in Heartbeat and Deregister.
   */
  'registrationId': (string);
  /**
   * Granted time to live in seconds; send a Heartbeat well before it passes.
   */
  'ttlSeconds': (number);
}
