// Original file: platform/tools/v1/tool_service.proto

import type { CallToolRequest as _platform_tools_v1_CallToolRequest, CallToolRequest__Output as _platform_tools_v1_CallToolRequest__Output } from '../../../platform/tools/v1/CallToolRequest.ts';
import type { TokenRenewal as _platform_tools_v1_TokenRenewal, TokenRenewal__Output as _platform_tools_v1_TokenRenewal__Output } from '../../../platform/tools/v1/TokenRenewal.ts';

/**
 * One message from the gateway on a CallToolAsTask stream.
 */
export interface TaskCallInput {
  /**
   * The first message, and only the first: the call.
   */
  'call'?: (_platform_tools_v1_CallToolRequest | null);
  /**
   * Any later message: a fresh delegated token for the call.
   */
  'renewal'?: (_platform_tools_v1_TokenRenewal | null);
  'input'?: "call"|"renewal";
}

/**
 * One message from the gateway on a CallToolAsTask stream.
 */
export interface TaskCallInput__Output {
  /**
   * The first message, and only the first: the call.
   */
  'call'?: (_platform_tools_v1_CallToolRequest__Output | null);
  /**
   * Any later message: a fresh delegated token for the call.
   */
  'renewal'?: (_platform_tools_v1_TokenRenewal__Output | null);
  'input'?: "call"|"renewal";
}
