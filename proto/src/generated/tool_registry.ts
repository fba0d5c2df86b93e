import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { DeregisterRequest as _platform_registry_v1_DeregisterRequest, DeregisterRequest__Output as _platform_registry_v1_DeregisterRequest__Output } from './platform/registry/v1/DeregisterRequest.ts';
import type { DeregisterResponse as _platform_registry_v1_DeregisterResponse, DeregisterResponse__Output as _platform_registry_v1_DeregisterResponse__Output } from './platform/registry/v1/DeregisterResponse.ts';
import type { HeartbeatRequest as _platform_registry_v1_HeartbeatRequest, HeartbeatRequest__Output as _platform_registry_v1_HeartbeatRequest__Output } from './platform/registry/v1/HeartbeatRequest.ts';
import type { HeartbeatResponse as _platform_registry_v1_HeartbeatResponse, HeartbeatResponse__Output as _platform_registry_v1_HeartbeatResponse__Output } from './platform/registry/v1/HeartbeatResponse.ts';
import type { RegisterRequest as _platform_registry_v1_RegisterRequest, RegisterRequest__Output as _platform_registry_v1_RegisterRequest__Output } from './platform/registry/v1/RegisterRequest.ts';
import type { RegisterResponse as _platform_registry_v1_RegisterResponse, RegisterResponse__Output as _platform_registry_v1_RegisterResponse__Output } from './platform/registry/v1/RegisterResponse.ts';
import type { ToolRegistryClient as _platform_registry_v1_ToolRegistryClient, ToolRegistryDefinition as _platform_registry_v1_ToolRegistryDefinition } from './platform/registry/v1/ToolRegistry.ts';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  platform: {
    registry: {
      v1: {
        DeregisterRequest: MessageTypeDefinition<_platform_registry_v1_DeregisterRequest, _platform_registry_v1_DeregisterRequest__Output>
        DeregisterResponse: MessageTypeDefinition<_platform_registry_v1_DeregisterResponse, _platform_registry_v1_DeregisterResponse__Output>
        HeartbeatRequest: MessageTypeDefinition<_platform_registry_v1_HeartbeatRequest, _platform_registry_v1_HeartbeatRequest__Output>
        HeartbeatResponse: MessageTypeDefinition<_platform_registry_v1_HeartbeatResponse, _platform_registry_v1_HeartbeatResponse__Output>
        RegisterRequest: MessageTypeDefinition<_platform_registry_v1_RegisterRequest, _platform_registry_v1_RegisterRequest__Output>
        RegisterResponse: MessageTypeDefinition<_platform_registry_v1_RegisterResponse, _platform_registry_v1_RegisterResponse__Output>
        ToolRegistry: SubtypeConstructor<typeof grpc.Client, _platform_registry_v1_ToolRegistryClient> & { service: _platform_registry_v1_ToolRegistryDefinition }
      }
    }
  }
}

