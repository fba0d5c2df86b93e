import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { CallToolRequest as _platform_tools_v1_CallToolRequest, CallToolRequest__Output as _platform_tools_v1_CallToolRequest__Output } from './platform/tools/v1/CallToolRequest.ts';
import type { CallToolResponse as _platform_tools_v1_CallToolResponse, CallToolResponse__Output as _platform_tools_v1_CallToolResponse__Output } from './platform/tools/v1/CallToolResponse.ts';
import type { ListToolsRequest as _platform_tools_v1_ListToolsRequest, ListToolsRequest__Output as _platform_tools_v1_ListToolsRequest__Output } from './platform/tools/v1/ListToolsRequest.ts';
import type { ListToolsResponse as _platform_tools_v1_ListToolsResponse, ListToolsResponse__Output as _platform_tools_v1_ListToolsResponse__Output } from './platform/tools/v1/ListToolsResponse.ts';
import type { Tool as _platform_tools_v1_Tool, Tool__Output as _platform_tools_v1_Tool__Output } from './platform/tools/v1/Tool.ts';
import type { ToolServiceClient as _platform_tools_v1_ToolServiceClient, ToolServiceDefinition as _platform_tools_v1_ToolServiceDefinition } from './platform/tools/v1/ToolService.ts';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  platform: {
    tools: {
      v1: {
        CallToolRequest: MessageTypeDefinition<_platform_tools_v1_CallToolRequest, _platform_tools_v1_CallToolRequest__Output>
        CallToolResponse: MessageTypeDefinition<_platform_tools_v1_CallToolResponse, _platform_tools_v1_CallToolResponse__Output>
        ListToolsRequest: MessageTypeDefinition<_platform_tools_v1_ListToolsRequest, _platform_tools_v1_ListToolsRequest__Output>
        ListToolsResponse: MessageTypeDefinition<_platform_tools_v1_ListToolsResponse, _platform_tools_v1_ListToolsResponse__Output>
        Tool: MessageTypeDefinition<_platform_tools_v1_Tool, _platform_tools_v1_Tool__Output>
        ToolService: SubtypeConstructor<typeof grpc.Client, _platform_tools_v1_ToolServiceClient> & { service: _platform_tools_v1_ToolServiceDefinition }
      }
    }
  }
}

