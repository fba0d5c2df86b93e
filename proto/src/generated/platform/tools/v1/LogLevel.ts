// Original file: platform/tools/v1/tool_service.proto

/**
 * MCP's logging levels (RFC 5424 severities), lowest first.
 */
export const LogLevel = {
  LOG_LEVEL_UNSPECIFIED: 'LOG_LEVEL_UNSPECIFIED',
  LOG_LEVEL_DEBUG: 'LOG_LEVEL_DEBUG',
  LOG_LEVEL_INFO: 'LOG_LEVEL_INFO',
  LOG_LEVEL_NOTICE: 'LOG_LEVEL_NOTICE',
  LOG_LEVEL_WARNING: 'LOG_LEVEL_WARNING',
  LOG_LEVEL_ERROR: 'LOG_LEVEL_ERROR',
  LOG_LEVEL_CRITICAL: 'LOG_LEVEL_CRITICAL',
  LOG_LEVEL_ALERT: 'LOG_LEVEL_ALERT',
  LOG_LEVEL_EMERGENCY: 'LOG_LEVEL_EMERGENCY',
} as const;

/**
 * MCP's logging levels (RFC 5424 severities), lowest first.
 */
export type LogLevel =
  | 'LOG_LEVEL_UNSPECIFIED'
  | 0
  | 'LOG_LEVEL_DEBUG'
  | 1
  | 'LOG_LEVEL_INFO'
  | 2
  | 'LOG_LEVEL_NOTICE'
  | 3
  | 'LOG_LEVEL_WARNING'
  | 4
  | 'LOG_LEVEL_ERROR'
  | 5
  | 'LOG_LEVEL_CRITICAL'
  | 6
  | 'LOG_LEVEL_ALERT'
  | 7
  | 'LOG_LEVEL_EMERGENCY'
  | 8

/**
 * MCP's logging levels (RFC 5424 severities), lowest first.
 */
export type LogLevel__Output = typeof LogLevel[keyof typeof LogLevel]
