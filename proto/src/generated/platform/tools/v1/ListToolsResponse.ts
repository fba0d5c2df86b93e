// Original file: platform/tools/v1/tool_service.proto

import type { Tool as _platform_tools_v1_Tool, Tool__Output as _platform_tools_v1_Tool__Output } from '../../../platform/tools/v1/Tool.ts';

export interface ListToolsResponse {
  /**
   * Every tool of this service, in a stable order.
   */
  'tools'?: (_platform_tools_v1_Tool)[];
}

export interface ListToolsResponse__Output {
  /**
   * Every tool of this service, in a stable order.
   */
  'tools': (_platform_tools_v1_Tool__Output)[];
}
