// Original file: platform/registry/v1/tool_registry.proto


export interface RegisterRequest {
  /**
   * Name of the service, unique per app; shown to operators and used in tool routing.
   */
  'serviceName'?: (string);
  /**
   * Where the gateway reaches this service's ToolService, as host:port. The gateway resolves the
   * host once (every address must be loopback unless its operator trusts the network) and dials
   * that address. Another app may name the same address: this service refuses their tokens.
   */
  'callbackAddress'?: (string);
  /**
   * Requested time to live of the registration, in seconds; the gateway may shorten it.
   */
  'ttlSeconds'?: (number);
}

export interface RegisterRequest__Output {
  /**
   * Name of the service, unique per app; shown to operators and used in tool routing.
   */
  'serviceName': (string);
  /**
   * Where the gateway reaches this service's ToolService, as host:port. The gateway resolves the
   * host once (every address must be loopback unless its operator trusts the network) and dials
   * that address. Another app may name the same address: this service refuses their tokens.
   */
  'callbackAddress': (string);
  /**
   * Requested time to live of the registration, in seconds; the gateway may shorten it.
   */
  'ttlSeconds': (number);
}
