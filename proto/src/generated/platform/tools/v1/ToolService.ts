// Original file: platform/tools/v1/tool_service.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CallToolEvent as _platform_tools_v1_CallToolEvent, CallToolEvent__Output as _platform_tools_v1_CallToolEvent__Output } from '../../../platform/tools/v1/CallToolEvent.ts';
import type { CallToolRequest as _platform_tools_v1_CallToolRequest, CallToolRequest__Output as _platform_tools_v1_CallToolRequest__Output } from '../../../platform/tools/v1/CallToolRequest.ts';
import type { CallToolResponse as _platform_tools_v1_CallToolResponse, CallToolResponse__Output as _platform_tools_v1_CallToolResponse__Output } from '../../../platform/tools/v1/CallToolResponse.ts';
import type { ListToolsRequest as _platform_tools_v1_ListToolsRequest, ListToolsRequest__Output as _platform_tools_v1_ListToolsRequest__Output } from '../../../platform/tools/v1/ListToolsRequest.ts';
import type { ListToolsResponse as _platform_tools_v1_ListToolsResponse, ListToolsResponse__Output as _platform_tools_v1_ListToolsResponse__Output } from '../../../platform/tools/v1/ListToolsResponse.ts';
import type { TaskCallInput as _platform_tools_v1_TaskCallInput, TaskCallInput__Output as _platform_tools_v1_TaskCallInput__Output } from '../../../platform/tools/v1/TaskCallInput.ts';

export interface ToolServiceClient extends grpc.Client {
  /**
   * The first revision's call: one answer, no events. Served by tool services built before
   * CallToolStream; the SDK does not serve it.
   */
  CallTool(argument: _platform_tools_v1_CallToolRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  CallTool(argument: _platform_tools_v1_CallToolRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  CallTool(argument: _platform_tools_v1_CallToolRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  CallTool(argument: _platform_tools_v1_CallToolRequest, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The first revision's call: one answer, no events. Served by tool services built before
   * CallToolStream; the SDK does not serve it.
   */
  callTool(argument: _platform_tools_v1_CallToolRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  callTool(argument: _platform_tools_v1_CallToolRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  callTool(argument: _platform_tools_v1_CallToolRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  callTool(argument: _platform_tools_v1_CallToolRequest, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * The same call, run as an MCP task, which may outlive a delegated token: the first message is
   * the call (its delegated token in the metadata, as for CallToolStream), each later one a fresh
   * delegated token for the same person and app, which the gateway obtains each time the person
   * polls the task. The events are CallToolStream's. The gateway ends its side of the stream once
   * the call has ended; it cancels the call when the person cancels the task or stops polling it.
   */
  CallToolAsTask(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_platform_tools_v1_TaskCallInput, _platform_tools_v1_CallToolEvent__Output>;
  CallToolAsTask(options?: grpc.CallOptions): grpc.ClientDuplexStream<_platform_tools_v1_TaskCallInput, _platform_tools_v1_CallToolEvent__Output>;
  /**
   * The same call, run as an MCP task, which may outlive a delegated token: the first message is
   * the call (its delegated token in the metadata, as for CallToolStream), each later one a fresh
   * delegated token for the same person and app, which the gateway obtains each time the person
   * polls the task. The events are CallToolStream's. The gateway ends its side of the stream once
   * the call has ended; it cancels the call when the person cancels the task or stops polling it.
   */
  callToolAsTask(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_platform_tools_v1_TaskCallInput, _platform_tools_v1_CallToolEvent__Output>;
  callToolAsTask(options?: grpc.CallOptions): grpc.ClientDuplexStream<_platform_tools_v1_TaskCallInput, _platform_tools_v1_CallToolEvent__Output>;
  
  /**
   * Runs one tool on behalf of the person named by the delegated token in the metadata, and streams
   * what it reports: any number of progress and log events, then exactly one final event (a result,
   * or the questions the tool needs answered before it can go on). Cancelling the call (the client
   * gave up) aborts the tool's signal.
   */
  CallToolStream(argument: _platform_tools_v1_CallToolRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_platform_tools_v1_CallToolEvent__Output>;
  CallToolStream(argument: _platform_tools_v1_CallToolRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_platform_tools_v1_CallToolEvent__Output>;
  /**
   * Runs one tool on behalf of the person named by the delegated token in the metadata, and streams
   * what it reports: any number of progress and log events, then exactly one final event (a result,
   * or the questions the tool needs answered before it can go on). Cancelling the call (the client
   * gave up) aborts the tool's signal.
   */
  callToolStream(argument: _platform_tools_v1_CallToolRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_platform_tools_v1_CallToolEvent__Output>;
  callToolStream(argument: _platform_tools_v1_CallToolRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_platform_tools_v1_CallToolEvent__Output>;
  
  /**
   * The tools this service offers, with their schemas and required permissions.
   */
  ListTools(argument: _platform_tools_v1_ListToolsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_tools_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  ListTools(argument: _platform_tools_v1_ListToolsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_platform_tools_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  ListTools(argument: _platform_tools_v1_ListToolsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_tools_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  ListTools(argument: _platform_tools_v1_ListToolsRequest, callback: grpc.requestCallback<_platform_tools_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The tools this service offers, with their schemas and required permissions.
   */
  listTools(argument: _platform_tools_v1_ListToolsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_tools_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  listTools(argument: _platform_tools_v1_ListToolsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_platform_tools_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  listTools(argument: _platform_tools_v1_ListToolsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_tools_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  listTools(argument: _platform_tools_v1_ListToolsRequest, callback: grpc.requestCallback<_platform_tools_v1_ListToolsResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface ToolServiceHandlers extends grpc.UntypedServiceImplementation {
  /**
   * The first revision's call: one answer, no events. Served by tool services built before
   * CallToolStream; the SDK does not serve it.
   */
  CallTool: grpc.handleUnaryCall<_platform_tools_v1_CallToolRequest__Output, _platform_tools_v1_CallToolResponse>;
  
  /**
   * The same call, run as an MCP task, which may outlive a delegated token: the first message is
   * the call (its delegated token in the metadata, as for CallToolStream), each later one a fresh
   * delegated token for the same person and app, which the gateway obtains each time the person
   * polls the task. The events are CallToolStream's. The gateway ends its side of the stream once
   * the call has ended; it cancels the call when the person cancels the task or stops polling it.
   */
  CallToolAsTask: grpc.handleBidiStreamingCall<_platform_tools_v1_TaskCallInput__Output, _platform_tools_v1_CallToolEvent>;
  
  /**
   * Runs one tool on behalf of the person named by the delegated token in the metadata, and streams
   * what it reports: any number of progress and log events, then exactly one final event (a result,
   * or the questions the tool needs answered before it can go on). Cancelling the call (the client
   * gave up) aborts the tool's signal.
   */
  CallToolStream: grpc.handleServerStreamingCall<_platform_tools_v1_CallToolRequest__Output, _platform_tools_v1_CallToolEvent>;
  
  /**
   * The tools this service offers, with their schemas and required permissions.
   */
  ListTools: grpc.handleUnaryCall<_platform_tools_v1_ListToolsRequest__Output, _platform_tools_v1_ListToolsResponse>;
  
}

export interface ToolServiceDefinition extends grpc.ServiceDefinition {
  CallTool: MethodDefinition<_platform_tools_v1_CallToolRequest, _platform_tools_v1_CallToolResponse, _platform_tools_v1_CallToolRequest__Output, _platform_tools_v1_CallToolResponse__Output>
  CallToolAsTask: MethodDefinition<_platform_tools_v1_TaskCallInput, _platform_tools_v1_CallToolEvent, _platform_tools_v1_TaskCallInput__Output, _platform_tools_v1_CallToolEvent__Output>
  CallToolStream: MethodDefinition<_platform_tools_v1_CallToolRequest, _platform_tools_v1_CallToolEvent, _platform_tools_v1_CallToolRequest__Output, _platform_tools_v1_CallToolEvent__Output>
  ListTools: MethodDefinition<_platform_tools_v1_ListToolsRequest, _platform_tools_v1_ListToolsResponse, _platform_tools_v1_ListToolsRequest__Output, _platform_tools_v1_ListToolsResponse__Output>
}
