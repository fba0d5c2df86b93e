// Original file: platform/tools/v1/tool_service.proto


/**
 * MCP `elicitation/create` in URL mode: the person is sent to a page (to sign in elsewhere, to pay).
 */
export interface UrlElicitation {
  'message'?: (string);
  /**
   * https (or loopback http where the gateway allows it); the gateway shows the person its host.
   */
  'url'?: (string);
}

/**
 * MCP `elicitation/create` in URL mode: the person is sent to a page (to sign in elsewhere, to pay).
 */
export interface UrlElicitation__Output {
  'message': (string);
  /**
   * https (or loopback http where the gateway allows it); the gateway shows the person its host.
   */
  'url': (string);
}
