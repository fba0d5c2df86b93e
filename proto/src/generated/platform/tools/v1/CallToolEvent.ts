// Original file: platform/tools/v1/tool_service.proto

import type { ToolProgress as _platform_tools_v1_ToolProgress, ToolProgress__Output as _platform_tools_v1_ToolProgress__Output } from '../../../platform/tools/v1/ToolProgress.ts';
import type { ToolLogMessage as _platform_tools_v1_ToolLogMessage, ToolLogMessage__Output as _platform_tools_v1_ToolLogMessage__Output } from '../../../platform/tools/v1/ToolLogMessage.ts';
import type { InputRequired as _platform_tools_v1_InputRequired, InputRequired__Output as _platform_tools_v1_InputRequired__Output } from '../../../platform/tools/v1/InputRequired.ts';
import type { ToolResult as _platform_tools_v1_ToolResult, ToolResult__Output as _platform_tools_v1_ToolResult__Output } from '../../../platform/tools/v1/ToolResult.ts';
import type { TaskStarted as _platform_tools_v1_TaskStarted, TaskStarted__Output as _platform_tools_v1_TaskStarted__Output } from '../../../platform/tools/v1/TaskStarted.ts';

/**
 * One event of a running call.
 */
export interface CallToolEvent {
  'progress'?: (_platform_tools_v1_ToolProgress | null);
  'log'?: (_platform_tools_v1_ToolLogMessage | null);
  /**
   * Final: the tool cannot go on without these answers. The gateway asks the client and calls the
   * tool again, with the answers, as a new call (possibly at another replica, after a restart).
   */
  'inputRequired'?: (_platform_tools_v1_InputRequired | null);
  /**
   * Final: what the tool answered.
   */
  'result'?: (_platform_tools_v1_ToolResult | null);
  /**
   * CallToolAsTask only, at most once and before any final event: the call runs as a task from
   * here. The gateway answers the client with the task and lets the call run on; a call that
   * ends before it (a refusal, a result, questions) is answered to the client as a plain call's
   * would be: questions asked before it are put to the client in the call itself (multi
   * round-trip), those after it inside the task. The SDK sends it as the tool's handler starts,
   * or, for a tool that starts its task itself, when the handler does.
   */
  'taskStarted'?: (_platform_tools_v1_TaskStarted | null);
  'event'?: "progress"|"log"|"inputRequired"|"result"|"taskStarted";
}

/**
 * One event of a running call.
 */
export interface CallToolEvent__Output {
  'progress'?: (_platform_tools_v1_ToolProgress__Output | null);
  'log'?: (_platform_tools_v1_ToolLogMessage__Output | null);
  /**
   * Final: the tool cannot go on without these answers. The gateway asks the client and calls the
   * tool again, with the answers, as a new call (possibly at another replica, after a restart).
   */
  'inputRequired'?: (_platform_tools_v1_InputRequired__Output | null);
  /**
   * Final: what the tool answered.
   */
  'result'?: (_platform_tools_v1_ToolResult__Output | null);
  /**
   * CallToolAsTask only, at most once and before any final event: the call runs as a task from
   * here. The gateway answers the client with the task and lets the call run on; a call that
   * ends before it (a refusal, a result, questions) is answered to the client as a plain call's
   * would be: questions asked before it are put to the client in the call itself (multi
   * round-trip), those after it inside the task. The SDK sends it as the tool's handler starts,
   * or, for a tool that starts its task itself, when the handler does.
   */
  'taskStarted'?: (_platform_tools_v1_TaskStarted__Output | null);
  'event'?: "progress"|"log"|"inputRequired"|"result"|"taskStarted";
}
