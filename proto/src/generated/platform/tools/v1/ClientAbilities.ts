// Original file: platform/tools/v1/tool_service.proto

import type { LogLevel as _platform_tools_v1_LogLevel, LogLevel__Output as _platform_tools_v1_LogLevel__Output } from '../../../platform/tools/v1/LogLevel.ts';

/**
 * What the MCP client of a call declared or asked for.
 */
export interface ClientAbilities {
  /**
   * The client gave a progress token: ToolProgress events reach it. Without one they are dropped.
   */
  'progress'?: (boolean);
  /**
   * The lowest level of log message the client wants; LOG_LEVEL_UNSPECIFIED means none.
   */
  'logLevel'?: (_platform_tools_v1_LogLevel);
  /**
   * Which questions the client can put to the person or its model (its declared capabilities).
   */
  'elicitationForm'?: (boolean);
  'elicitationUrl'?: (boolean);
  'sampling'?: (boolean);
  'roots'?: (boolean);
}

/**
 * What the MCP client of a call declared or asked for.
 */
export interface ClientAbilities__Output {
  /**
   * The client gave a progress token: ToolProgress events reach it. Without one they are dropped.
   */
  'progress': (boolean);
  /**
   * The lowest level of log message the client wants; LOG_LEVEL_UNSPECIFIED means none.
   */
  'logLevel': (_platform_tools_v1_LogLevel__Output);
  /**
   * Which questions the client can put to the person or its model (its declared capabilities).
   */
  'elicitationForm': (boolean);
  'elicitationUrl': (boolean);
  'sampling': (boolean);
  'roots': (boolean);
}
