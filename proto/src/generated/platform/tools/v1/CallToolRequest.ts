// Original file: platform/tools/v1/tool_service.proto

import type { ClientAbilities as _platform_tools_v1_ClientAbilities, ClientAbilities__Output as _platform_tools_v1_ClientAbilities__Output } from '../../../platform/tools/v1/ClientAbilities.ts';

export interface CallToolRequest {
  /**
   * The tool to run, as listed by ListTools.
   */
  'name'?: (string);
  /**
   * The arguments object, as a JSON string ("{}" for none).
   */
  'argumentsJson'?: (string);
  /**
   * Correlation id of the MCP request, repeated in the tool service's logs.
   */
  'requestId'?: (string);
  /**
   * Since the second revision (CallToolStream); a service built before ignores them.
   * What the client of this call can take: progress, log messages, which questions.
   */
  'client'?: (_platform_tools_v1_ClientAbilities | null);
  /**
   * The answers to the tool's questions so far, by the key the tool gave each question: the
   * client's bare response (an elicitation's {action, content}, a sampling result, a roots list) as
   * JSON. Empty on a first round. The gateway carries earlier rounds' answers in the sealed state it
   * hands the client, so a tool asked again finds every answer it was given in this call; an answer
   * the tool asks for again (it did not accept it) is dropped. Untrusted input: the SDK checks each
   * one against the question before the tool sees it.
   */
  'inputResponsesJson'?: ({[key: string]: string});
}

export interface CallToolRequest__Output {
  /**
   * The tool to run, as listed by ListTools.
   */
  'name': (string);
  /**
   * The arguments object, as a JSON string ("{}" for none).
   */
  'argumentsJson': (string);
  /**
   * Correlation id of the MCP request, repeated in the tool service's logs.
   */
  'requestId': (string);
  /**
   * Since the second revision (CallToolStream); a service built before ignores them.
   * What the client of this call can take: progress, log messages, which questions.
   */
  'client': (_platform_tools_v1_ClientAbilities__Output | null);
  /**
   * The answers to the tool's questions so far, by the key the tool gave each question: the
   * client's bare response (an elicitation's {action, content}, a sampling result, a roots list) as
   * JSON. Empty on a first round. The gateway carries earlier rounds' answers in the sealed state it
   * hands the client, so a tool asked again finds every answer it was given in this call; an answer
   * the tool asks for again (it did not accept it) is dropped. Untrusted input: the SDK checks each
   * one against the question before the tool sees it.
   */
  'inputResponsesJson': ({[key: string]: string});
}
