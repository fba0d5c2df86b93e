// Original file: platform/registry/v1/tool_registry.proto


export interface HeartbeatResponse {
  /**
   * Granted time to live in seconds, counted from this heartbeat.
   */
  'ttlSeconds'?: (number);
}

export interface HeartbeatResponse__Output {
  /**
   * Granted time to live in seconds, counted from this heartbeat.
   */
  'ttlSeconds': (number);
}
