// Original file: platform/tools/v1/tool_service.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CallToolRequest as _platform_tools_v1_CallToolRequest, CallToolRequest__Output as _platform_tools_v1_CallToolRequest__Output } from '../../../platform/tools/v1/CallToolRequest.ts';
import type { CallToolResponse as _platform_tools_v1_CallToolResponse, CallToolResponse__Output as _platform_tools_v1_CallToolResponse__Output } from '../../../platform/tools/v1/CallToolResponse.ts';
import type { ListToolsRequest as _platform_tools_v1_ListToolsRequest, ListToolsRequest__Output as _platform_tools_v1_ListToolsRequest__Output } from '../../../platform/tools/v1/ListToolsRequest.ts';
import type { ListToolsResponse as _platform_tools_v1_ListToolsResponse, ListToolsResponse__Output as _platform_tools_v1_ListToolsResponse__Output } from '../../../platform/tools/v1/ListToolsResponse.ts';

export interface ToolServiceClient extends grpc.Client {
  /**
   * Runs one tool on behalf of the person named by the delegated token in the metadata.
   */
  CallTool(argument: _platform_tools_v1_CallToolRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  CallTool(argument: _platform_tools_v1_CallToolRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  CallTool(argument: _platform_tools_v1_CallToolRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  CallTool(argument: _platform_tools_v1_CallToolRequest, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Runs one tool on behalf of the person named by the delegated token in the metadata.
   */
  callTool(argument: _platform_tools_v1_CallToolRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  callTool(argument: _platform_tools_v1_CallToolRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  callTool(argument: _platform_tools_v1_CallToolRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  callTool(argument: _platform_tools_v1_CallToolRequest, callback: grpc.requestCallback<_platform_tools_v1_CallToolResponse__Output>): grpc.ClientUnaryCall;
  
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
   * Runs one tool on behalf of the person named by the delegated token in the metadata.
   */
  CallTool: grpc.handleUnaryCall<_platform_tools_v1_CallToolRequest__Output, _platform_tools_v1_CallToolResponse>;
  
  /**
   * The tools this service offers, with their schemas and required permissions.
   */
  ListTools: grpc.handleUnaryCall<_platform_tools_v1_ListToolsRequest__Output, _platform_tools_v1_ListToolsResponse>;
  
}

export interface ToolServiceDefinition extends grpc.ServiceDefinition {
  CallTool: MethodDefinition<_platform_tools_v1_CallToolRequest, _platform_tools_v1_CallToolResponse, _platform_tools_v1_CallToolRequest__Output, _platform_tools_v1_CallToolResponse__Output>
  ListTools: MethodDefinition<_platform_tools_v1_ListToolsRequest, _platform_tools_v1_ListToolsResponse, _platform_tools_v1_ListToolsRequest__Output, _platform_tools_v1_ListToolsResponse__Output>
}
