// Original file: platform/tools/v1/tool_service.proto


/**
 * A fresh delegated token for a running call (subject = the same person, actor = this service's
 * app). The service checks it as it checks a call's token; one it accepts replaces the call's token
 * (ctx.authToken and the call's platform requests use it from then on), one it refuses is dropped
 * and the call keeps the token it has, until that token expires. A secret, like the metadata's.
 */
export interface TokenRenewal {
  'delegatedToken'?: (string);
}

/**
 * A fresh delegated token for a running call (subject = the same person, actor = this service's
 * app). The service checks it as it checks a call's token; one it accepts replaces the call's token
 * (ctx.authToken and the call's platform requests use it from then on), one it refuses is dropped
 * and the call keeps the token it has, until that token expires. A secret, like the metadata's.
 */
export interface TokenRenewal__Output {
  'delegatedToken': (string);
}
