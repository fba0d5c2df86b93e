// Original file: platform/tools/v1/tool_service.proto

import type { InputRequest as _platform_tools_v1_InputRequest, InputRequest__Output as _platform_tools_v1_InputRequest__Output } from '../../../platform/tools/v1/InputRequest.ts';

/**
 * The questions a tool needs answered, by keys of its choosing (1 to 64 of [A-Za-z0-9_.-], unique
 * in the call); the answers come back under the same keys in the next call's input_responses_json.
 */
export interface InputRequired {
  'requests'?: ({[key: string]: _platform_tools_v1_InputRequest});
}

/**
 * The questions a tool needs answered, by keys of its choosing (1 to 64 of [A-Za-z0-9_.-], unique
 * in the call); the answers come back under the same keys in the next call's input_responses_json.
 */
export interface InputRequired__Output {
  'requests': ({[key: string]: _platform_tools_v1_InputRequest__Output});
}
