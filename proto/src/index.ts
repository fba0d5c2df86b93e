// Typed gRPC definitions of the tool and registry contracts, loaded once per process.
import * as grpc from '@grpc/grpc-js';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import type { ProtoGrpcType as RegistryProto } from './generated/tool_registry.ts';
import type { ProtoGrpcType as ToolsProto } from './generated/tool_service.ts';
import { loaderOptions, protoPath } from './proto-files.ts';

let toolsDefinition: PackageDefinition | undefined;
let tools: ToolsProto['platform']['tools']['v1'] | undefined;
let registry: RegistryProto['platform']['registry']['v1'] | undefined;

/** The loaded definition of `platform.tools.v1`, with its file descriptors (what server reflection serves). */
export function toolsPackageDefinition(): PackageDefinition {
  toolsDefinition ??= loadSync(protoPath('platform/tools/v1/tool_service.proto'), loaderOptions);
  return toolsDefinition;
}

/** The `platform.tools.v1` package: ToolService and its messages. */
export function loadToolsProto(): ToolsProto['platform']['tools']['v1'] {
  tools ??= (grpc.loadPackageDefinition(toolsPackageDefinition()) as unknown as ToolsProto).platform.tools.v1;
  return tools;
}

/** The `platform.registry.v1` package: ToolRegistry and its messages. */
export function loadRegistryProto(): RegistryProto['platform']['registry']['v1'] {
  if (!registry) {
    const definition = loadSync(protoPath('platform/registry/v1/tool_registry.proto'), loaderOptions);
    registry = (grpc.loadPackageDefinition(definition) as unknown as RegistryProto).platform.registry.v1;
  }
  return registry;
}

export { protoFiles, protoPath, protoRoot } from './proto-files.ts';
export type { ToolServiceClient, ToolServiceHandlers } from './generated/platform/tools/v1/ToolService.ts';
export type { Tool, Tool__Output } from './generated/platform/tools/v1/Tool.ts';
export type { CallToolRequest__Output } from './generated/platform/tools/v1/CallToolRequest.ts';
export type { CallToolRequest } from './generated/platform/tools/v1/CallToolRequest.ts';
export type { CallToolResponse, CallToolResponse__Output } from './generated/platform/tools/v1/CallToolResponse.ts';
export type { ListToolsResponse, ListToolsResponse__Output } from './generated/platform/tools/v1/ListToolsResponse.ts';
export type { ToolRegistryClient, ToolRegistryHandlers } from './generated/platform/registry/v1/ToolRegistry.ts';
export type { RegisterRequest__Output } from './generated/platform/registry/v1/RegisterRequest.ts';
export type { RegisterResponse, RegisterResponse__Output } from './generated/platform/registry/v1/RegisterResponse.ts';
export type { HeartbeatRequest__Output } from './generated/platform/registry/v1/HeartbeatRequest.ts';
export type { HeartbeatResponse, HeartbeatResponse__Output } from './generated/platform/registry/v1/HeartbeatResponse.ts';
export type { DeregisterRequest__Output } from './generated/platform/registry/v1/DeregisterRequest.ts';
export type { CallToolEvent, CallToolEvent__Output } from './generated/platform/tools/v1/CallToolEvent.ts';
export type { ClientAbilities, ClientAbilities__Output } from './generated/platform/tools/v1/ClientAbilities.ts';
export type { ContentBlock, ContentBlock__Output } from './generated/platform/tools/v1/ContentBlock.ts';
export type { InputRequest, InputRequest__Output } from './generated/platform/tools/v1/InputRequest.ts';
export type { InputRequired, InputRequired__Output } from './generated/platform/tools/v1/InputRequired.ts';
export type { ToolLogMessage__Output } from './generated/platform/tools/v1/ToolLogMessage.ts';
export type { ToolProgress__Output } from './generated/platform/tools/v1/ToolProgress.ts';
export type { ToolResult, ToolResult__Output } from './generated/platform/tools/v1/ToolResult.ts';
export type { LogLevel } from './generated/platform/tools/v1/LogLevel.ts';
export type { Annotations__Output } from './generated/platform/tools/v1/Annotations.ts';
export type { TaskCallInput, TaskCallInput__Output } from './generated/platform/tools/v1/TaskCallInput.ts';
export type { TaskSupport, TaskSupport__Output } from './generated/platform/tools/v1/TaskSupport.ts';
export type { TaskStarted } from './generated/platform/tools/v1/TaskStarted.ts';
