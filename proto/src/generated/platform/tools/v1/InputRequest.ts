// Original file: platform/tools/v1/tool_service.proto

import type { FormElicitation as _platform_tools_v1_FormElicitation, FormElicitation__Output as _platform_tools_v1_FormElicitation__Output } from '../../../platform/tools/v1/FormElicitation.ts';
import type { UrlElicitation as _platform_tools_v1_UrlElicitation, UrlElicitation__Output as _platform_tools_v1_UrlElicitation__Output } from '../../../platform/tools/v1/UrlElicitation.ts';
import type { RootsRequest as _platform_tools_v1_RootsRequest, RootsRequest__Output as _platform_tools_v1_RootsRequest__Output } from '../../../platform/tools/v1/RootsRequest.ts';

/**
 * One question, as the 2026-07-28 revision of MCP embeds it in an input-required result.
 */
export interface InputRequest {
  'form'?: (_platform_tools_v1_FormElicitation | null);
  'url'?: (_platform_tools_v1_UrlElicitation | null);
  /**
   * MCP `sampling/createMessage`: its params as a JSON object string.
   */
  'samplingParamsJson'?: (string);
  /**
   * MCP `roots/list`.
   */
  'roots'?: (_platform_tools_v1_RootsRequest | null);
  'request'?: "form"|"url"|"samplingParamsJson"|"roots";
}

/**
 * One question, as the 2026-07-28 revision of MCP embeds it in an input-required result.
 */
export interface InputRequest__Output {
  'form'?: (_platform_tools_v1_FormElicitation__Output | null);
  'url'?: (_platform_tools_v1_UrlElicitation__Output | null);
  /**
   * MCP `sampling/createMessage`: its params as a JSON object string.
   */
  'samplingParamsJson'?: (string);
  /**
   * MCP `roots/list`.
   */
  'roots'?: (_platform_tools_v1_RootsRequest__Output | null);
  'request'?: "form"|"url"|"samplingParamsJson"|"roots";
}
