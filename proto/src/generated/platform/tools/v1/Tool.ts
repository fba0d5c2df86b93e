// Original file: platform/tools/v1/tool_service.proto

import type { TaskSupport as _platform_tools_v1_TaskSupport, TaskSupport__Output as _platform_tools_v1_TaskSupport__Output } from '../../../platform/tools/v1/TaskSupport.ts';

/**
 * One tool as the MCP server lists it to clients.
 */
export interface Tool {
  /**
   * Unique within the service; the MCP tool name. Letters, digits, '_' and '-' only.
   */
  'name'?: (string);
  /**
   * Short human-readable title (MCP `title`).
   */
  'title'?: (string);
  /**
   * What the tool does, written for the agent that decides whether to call it.
   */
  'description'?: (string);
  /**
   * JSON Schema (draft 2020-12 unless it names another with `$schema`) of the arguments object, as
   * a JSON string; the gateway lists it exactly as given.
   */
  'inputSchemaJson'?: (string);
  /**
   * JSON Schema of the result object (MCP `outputSchema`), as a JSON string; empty when the tool
   * declares none.
   */
  'outputSchemaJson'?: (string);
  /**
   * The permission the caller must hold at the company the call targets, such as
   * `device-overview:manage`; empty when the tool needs none beyond a valid token.
   */
  'requiresPermission'?: (string);
  /**
   * MCP tool annotation hints, shown to clients; they are hints, not guarantees.
   */
  'readOnlyHint'?: (boolean);
  'destructiveHint'?: (boolean);
  'idempotentHint'?: (boolean);
  /**
   * The longest a call of the tool may run, in milliseconds, as the tool declares it (`timeoutMs` of
   * the SDK's defineTool); 0 when it declares none. The gateway gives each call the smaller of this
   * and its own maximum (TOOL_CALL_TIMEOUT_MS) as the call's deadline, and names the limit that
   * applied when a call passes it.
   */
  'timeoutMs'?: (number);
  /**
   * Whether a client may run the tool as an MCP task (the SDK's defineTool `execution.taskSupport`,
   * MCP's `execution.taskSupport` of 2025-11-25).
   */
  'taskSupport'?: (_platform_tools_v1_TaskSupport);
}

/**
 * One tool as the MCP server lists it to clients.
 */
export interface Tool__Output {
  /**
   * Unique within the service; the MCP tool name. Letters, digits, '_' and '-' only.
   */
  'name': (string);
  /**
   * Short human-readable title (MCP `title`).
   */
  'title': (string);
  /**
   * What the tool does, written for the agent that decides whether to call it.
   */
  'description': (string);
  /**
   * JSON Schema (draft 2020-12 unless it names another with `$schema`) of the arguments object, as
   * a JSON string; the gateway lists it exactly as given.
   */
  'inputSchemaJson': (string);
  /**
   * JSON Schema of the result object (MCP `outputSchema`), as a JSON string; empty when the tool
   * declares none.
   */
  'outputSchemaJson': (string);
  /**
   * The permission the caller must hold at the company the call targets, such as
   * `device-overview:manage`; empty when the tool needs none beyond a valid token.
   */
  'requiresPermission': (string);
  /**
   * MCP tool annotation hints, shown to clients; they are hints, not guarantees.
   */
  'readOnlyHint': (boolean);
  'destructiveHint': (boolean);
  'idempotentHint': (boolean);
  /**
   * The longest a call of the tool may run, in milliseconds, as the tool declares it (`timeoutMs` of
   * the SDK's defineTool); 0 when it declares none. The gateway gives each call the smaller of this
   * and its own maximum (TOOL_CALL_TIMEOUT_MS) as the call's deadline, and names the limit that
   * applied when a call passes it.
   */
  'timeoutMs': (number);
  /**
   * Whether a client may run the tool as an MCP task (the SDK's defineTool `execution.taskSupport`,
   * MCP's `execution.taskSupport` of 2025-11-25).
   */
  'taskSupport': (_platform_tools_v1_TaskSupport__Output);
}
