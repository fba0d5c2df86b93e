import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Annotations as _platform_tools_v1_Annotations, Annotations__Output as _platform_tools_v1_Annotations__Output } from './platform/tools/v1/Annotations.ts';
import type { CallToolEvent as _platform_tools_v1_CallToolEvent, CallToolEvent__Output as _platform_tools_v1_CallToolEvent__Output } from './platform/tools/v1/CallToolEvent.ts';
import type { CallToolRequest as _platform_tools_v1_CallToolRequest, CallToolRequest__Output as _platform_tools_v1_CallToolRequest__Output } from './platform/tools/v1/CallToolRequest.ts';
import type { CallToolResponse as _platform_tools_v1_CallToolResponse, CallToolResponse__Output as _platform_tools_v1_CallToolResponse__Output } from './platform/tools/v1/CallToolResponse.ts';
import type { ClientAbilities as _platform_tools_v1_ClientAbilities, ClientAbilities__Output as _platform_tools_v1_ClientAbilities__Output } from './platform/tools/v1/ClientAbilities.ts';
import type { ContentBlock as _platform_tools_v1_ContentBlock, ContentBlock__Output as _platform_tools_v1_ContentBlock__Output } from './platform/tools/v1/ContentBlock.ts';
import type { EmbeddedResource as _platform_tools_v1_EmbeddedResource, EmbeddedResource__Output as _platform_tools_v1_EmbeddedResource__Output } from './platform/tools/v1/EmbeddedResource.ts';
import type { FormElicitation as _platform_tools_v1_FormElicitation, FormElicitation__Output as _platform_tools_v1_FormElicitation__Output } from './platform/tools/v1/FormElicitation.ts';
import type { InputRequest as _platform_tools_v1_InputRequest, InputRequest__Output as _platform_tools_v1_InputRequest__Output } from './platform/tools/v1/InputRequest.ts';
import type { InputRequired as _platform_tools_v1_InputRequired, InputRequired__Output as _platform_tools_v1_InputRequired__Output } from './platform/tools/v1/InputRequired.ts';
import type { ListToolsRequest as _platform_tools_v1_ListToolsRequest, ListToolsRequest__Output as _platform_tools_v1_ListToolsRequest__Output } from './platform/tools/v1/ListToolsRequest.ts';
import type { ListToolsResponse as _platform_tools_v1_ListToolsResponse, ListToolsResponse__Output as _platform_tools_v1_ListToolsResponse__Output } from './platform/tools/v1/ListToolsResponse.ts';
import type { MediaContent as _platform_tools_v1_MediaContent, MediaContent__Output as _platform_tools_v1_MediaContent__Output } from './platform/tools/v1/MediaContent.ts';
import type { ResourceLink as _platform_tools_v1_ResourceLink, ResourceLink__Output as _platform_tools_v1_ResourceLink__Output } from './platform/tools/v1/ResourceLink.ts';
import type { RootsRequest as _platform_tools_v1_RootsRequest, RootsRequest__Output as _platform_tools_v1_RootsRequest__Output } from './platform/tools/v1/RootsRequest.ts';
import type { TaskCallInput as _platform_tools_v1_TaskCallInput, TaskCallInput__Output as _platform_tools_v1_TaskCallInput__Output } from './platform/tools/v1/TaskCallInput.ts';
import type { TaskStarted as _platform_tools_v1_TaskStarted, TaskStarted__Output as _platform_tools_v1_TaskStarted__Output } from './platform/tools/v1/TaskStarted.ts';
import type { TokenRenewal as _platform_tools_v1_TokenRenewal, TokenRenewal__Output as _platform_tools_v1_TokenRenewal__Output } from './platform/tools/v1/TokenRenewal.ts';
import type { Tool as _platform_tools_v1_Tool, Tool__Output as _platform_tools_v1_Tool__Output } from './platform/tools/v1/Tool.ts';
import type { ToolLogMessage as _platform_tools_v1_ToolLogMessage, ToolLogMessage__Output as _platform_tools_v1_ToolLogMessage__Output } from './platform/tools/v1/ToolLogMessage.ts';
import type { ToolProgress as _platform_tools_v1_ToolProgress, ToolProgress__Output as _platform_tools_v1_ToolProgress__Output } from './platform/tools/v1/ToolProgress.ts';
import type { ToolResult as _platform_tools_v1_ToolResult, ToolResult__Output as _platform_tools_v1_ToolResult__Output } from './platform/tools/v1/ToolResult.ts';
import type { ToolServiceClient as _platform_tools_v1_ToolServiceClient, ToolServiceDefinition as _platform_tools_v1_ToolServiceDefinition } from './platform/tools/v1/ToolService.ts';
import type { UrlElicitation as _platform_tools_v1_UrlElicitation, UrlElicitation__Output as _platform_tools_v1_UrlElicitation__Output } from './platform/tools/v1/UrlElicitation.ts';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  platform: {
    tools: {
      v1: {
        Annotations: MessageTypeDefinition<_platform_tools_v1_Annotations, _platform_tools_v1_Annotations__Output>
        CallToolEvent: MessageTypeDefinition<_platform_tools_v1_CallToolEvent, _platform_tools_v1_CallToolEvent__Output>
        CallToolRequest: MessageTypeDefinition<_platform_tools_v1_CallToolRequest, _platform_tools_v1_CallToolRequest__Output>
        CallToolResponse: MessageTypeDefinition<_platform_tools_v1_CallToolResponse, _platform_tools_v1_CallToolResponse__Output>
        ClientAbilities: MessageTypeDefinition<_platform_tools_v1_ClientAbilities, _platform_tools_v1_ClientAbilities__Output>
        ContentBlock: MessageTypeDefinition<_platform_tools_v1_ContentBlock, _platform_tools_v1_ContentBlock__Output>
        EmbeddedResource: MessageTypeDefinition<_platform_tools_v1_EmbeddedResource, _platform_tools_v1_EmbeddedResource__Output>
        FormElicitation: MessageTypeDefinition<_platform_tools_v1_FormElicitation, _platform_tools_v1_FormElicitation__Output>
        InputRequest: MessageTypeDefinition<_platform_tools_v1_InputRequest, _platform_tools_v1_InputRequest__Output>
        InputRequired: MessageTypeDefinition<_platform_tools_v1_InputRequired, _platform_tools_v1_InputRequired__Output>
        ListToolsRequest: MessageTypeDefinition<_platform_tools_v1_ListToolsRequest, _platform_tools_v1_ListToolsRequest__Output>
        ListToolsResponse: MessageTypeDefinition<_platform_tools_v1_ListToolsResponse, _platform_tools_v1_ListToolsResponse__Output>
        LogLevel: EnumTypeDefinition
        MediaContent: MessageTypeDefinition<_platform_tools_v1_MediaContent, _platform_tools_v1_MediaContent__Output>
        ResourceLink: MessageTypeDefinition<_platform_tools_v1_ResourceLink, _platform_tools_v1_ResourceLink__Output>
        RootsRequest: MessageTypeDefinition<_platform_tools_v1_RootsRequest, _platform_tools_v1_RootsRequest__Output>
        TaskCallInput: MessageTypeDefinition<_platform_tools_v1_TaskCallInput, _platform_tools_v1_TaskCallInput__Output>
        TaskStarted: MessageTypeDefinition<_platform_tools_v1_TaskStarted, _platform_tools_v1_TaskStarted__Output>
        TaskSupport: EnumTypeDefinition
        TokenRenewal: MessageTypeDefinition<_platform_tools_v1_TokenRenewal, _platform_tools_v1_TokenRenewal__Output>
        Tool: MessageTypeDefinition<_platform_tools_v1_Tool, _platform_tools_v1_Tool__Output>
        ToolLogMessage: MessageTypeDefinition<_platform_tools_v1_ToolLogMessage, _platform_tools_v1_ToolLogMessage__Output>
        ToolProgress: MessageTypeDefinition<_platform_tools_v1_ToolProgress, _platform_tools_v1_ToolProgress__Output>
        ToolResult: MessageTypeDefinition<_platform_tools_v1_ToolResult, _platform_tools_v1_ToolResult__Output>
        ToolService: SubtypeConstructor<typeof grpc.Client, _platform_tools_v1_ToolServiceClient> & { service: _platform_tools_v1_ToolServiceDefinition }
        UrlElicitation: MessageTypeDefinition<_platform_tools_v1_UrlElicitation, _platform_tools_v1_UrlElicitation__Output>
      }
    }
  }
}

