// Original file: platform/tools/v1/tool_service.proto

/**
 * MCP's `execution.taskSupport` of a tool.
 */
export const TaskSupport = {
  /**
   * Never run as a task: every call is answered at once (the default, and a service built before).
   */
  TASK_SUPPORT_FORBIDDEN: 'TASK_SUPPORT_FORBIDDEN',
  /**
   * Run as a task when the client supports tasks (declares io.modelcontextprotocol/tasks), at once otherwise.
   */
  TASK_SUPPORT_OPTIONAL: 'TASK_SUPPORT_OPTIONAL',
  /**
   * Only run as a task: a client that does not support tasks is refused (MCP error -32021).
   */
  TASK_SUPPORT_REQUIRED: 'TASK_SUPPORT_REQUIRED',
} as const;

/**
 * MCP's `execution.taskSupport` of a tool.
 */
export type TaskSupport =
  /**
   * Never run as a task: every call is answered at once (the default, and a service built before).
   */
  | 'TASK_SUPPORT_FORBIDDEN'
  | 0
  /**
   * Run as a task when the client supports tasks (declares io.modelcontextprotocol/tasks), at once otherwise.
   */
  | 'TASK_SUPPORT_OPTIONAL'
  | 1
  /**
   * Only run as a task: a client that does not support tasks is refused (MCP error -32021).
   */
  | 'TASK_SUPPORT_REQUIRED'
  | 2

/**
 * MCP's `execution.taskSupport` of a tool.
 */
export type TaskSupport__Output = typeof TaskSupport[keyof typeof TaskSupport]
