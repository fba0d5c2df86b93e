// Original file: platform/tools/v1/tool_service.proto

import type { LogLevel as _platform_tools_v1_LogLevel, LogLevel__Output as _platform_tools_v1_LogLevel__Output } from '../../../platform/tools/v1/LogLevel.ts';

/**
 * MCP `notifications/message`: a log message meant for the client.
 */
export interface ToolLogMessage {
  'level'?: (_platform_tools_v1_LogLevel);
  /**
   * The logger's name, optional.
   */
  'logger'?: (string);
  /**
   * The message: any JSON value, as a JSON string.
   */
  'dataJson'?: (string);
}

/**
 * MCP `notifications/message`: a log message meant for the client.
 */
export interface ToolLogMessage__Output {
  'level': (_platform_tools_v1_LogLevel__Output);
  /**
   * The logger's name, optional.
   */
  'logger': (string);
  /**
   * The message: any JSON value, as a JSON string.
   */
  'dataJson': (string);
}
