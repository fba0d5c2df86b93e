// Original file: platform/registry/v1/tool_registry.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DeregisterRequest as _platform_registry_v1_DeregisterRequest, DeregisterRequest__Output as _platform_registry_v1_DeregisterRequest__Output } from '../../../platform/registry/v1/DeregisterRequest.ts';
import type { DeregisterResponse as _platform_registry_v1_DeregisterResponse, DeregisterResponse__Output as _platform_registry_v1_DeregisterResponse__Output } from '../../../platform/registry/v1/DeregisterResponse.ts';
import type { HeartbeatRequest as _platform_registry_v1_HeartbeatRequest, HeartbeatRequest__Output as _platform_registry_v1_HeartbeatRequest__Output } from '../../../platform/registry/v1/HeartbeatRequest.ts';
import type { HeartbeatResponse as _platform_registry_v1_HeartbeatResponse, HeartbeatResponse__Output as _platform_registry_v1_HeartbeatResponse__Output } from '../../../platform/registry/v1/HeartbeatResponse.ts';
import type { RegisterRequest as _platform_registry_v1_RegisterRequest, RegisterRequest__Output as _platform_registry_v1_RegisterRequest__Output } from '../../../platform/registry/v1/RegisterRequest.ts';
import type { RegisterResponse as _platform_registry_v1_RegisterResponse, RegisterResponse__Output as _platform_registry_v1_RegisterResponse__Output } from '../../../platform/registry/v1/RegisterResponse.ts';

export interface ToolRegistryClient extends grpc.Client {
  /**
   * Removes a registration at once (a service that shuts down cleanly).
   */
  Deregister(argument: _platform_registry_v1_DeregisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_registry_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  Deregister(argument: _platform_registry_v1_DeregisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_platform_registry_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  Deregister(argument: _platform_registry_v1_DeregisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_registry_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  Deregister(argument: _platform_registry_v1_DeregisterRequest, callback: grpc.requestCallback<_platform_registry_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Removes a registration at once (a service that shuts down cleanly).
   */
  deregister(argument: _platform_registry_v1_DeregisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_registry_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  deregister(argument: _platform_registry_v1_DeregisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_platform_registry_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  deregister(argument: _platform_registry_v1_DeregisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_registry_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  deregister(argument: _platform_registry_v1_DeregisterRequest, callback: grpc.requestCallback<_platform_registry_v1_DeregisterResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Keeps a registration alive and hands the gateway the app's current token.
   */
  Heartbeat(argument: _platform_registry_v1_HeartbeatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_registry_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _platform_registry_v1_HeartbeatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_platform_registry_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _platform_registry_v1_HeartbeatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_registry_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _platform_registry_v1_HeartbeatRequest, callback: grpc.requestCallback<_platform_registry_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Keeps a registration alive and hands the gateway the app's current token.
   */
  heartbeat(argument: _platform_registry_v1_HeartbeatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_registry_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _platform_registry_v1_HeartbeatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_platform_registry_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _platform_registry_v1_HeartbeatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_registry_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _platform_registry_v1_HeartbeatRequest, callback: grpc.requestCallback<_platform_registry_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Announces a tool service; the gateway lists its tools to MCP clients while it stays alive.
   */
  Register(argument: _platform_registry_v1_RegisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_registry_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  Register(argument: _platform_registry_v1_RegisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_platform_registry_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  Register(argument: _platform_registry_v1_RegisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_registry_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  Register(argument: _platform_registry_v1_RegisterRequest, callback: grpc.requestCallback<_platform_registry_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Announces a tool service; the gateway lists its tools to MCP clients while it stays alive.
   */
  register(argument: _platform_registry_v1_RegisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_registry_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  register(argument: _platform_registry_v1_RegisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_platform_registry_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  register(argument: _platform_registry_v1_RegisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_platform_registry_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  register(argument: _platform_registry_v1_RegisterRequest, callback: grpc.requestCallback<_platform_registry_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface ToolRegistryHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Removes a registration at once (a service that shuts down cleanly).
   */
  Deregister: grpc.handleUnaryCall<_platform_registry_v1_DeregisterRequest__Output, _platform_registry_v1_DeregisterResponse>;
  
  /**
   * Keeps a registration alive and hands the gateway the app's current token.
   */
  Heartbeat: grpc.handleUnaryCall<_platform_registry_v1_HeartbeatRequest__Output, _platform_registry_v1_HeartbeatResponse>;
  
  /**
   * Announces a tool service; the gateway lists its tools to MCP clients while it stays alive.
   */
  Register: grpc.handleUnaryCall<_platform_registry_v1_RegisterRequest__Output, _platform_registry_v1_RegisterResponse>;
  
}

export interface ToolRegistryDefinition extends grpc.ServiceDefinition {
  Deregister: MethodDefinition<_platform_registry_v1_DeregisterRequest, _platform_registry_v1_DeregisterResponse, _platform_registry_v1_DeregisterRequest__Output, _platform_registry_v1_DeregisterResponse__Output>
  Heartbeat: MethodDefinition<_platform_registry_v1_HeartbeatRequest, _platform_registry_v1_HeartbeatResponse, _platform_registry_v1_HeartbeatRequest__Output, _platform_registry_v1_HeartbeatResponse__Output>
  Register: MethodDefinition<_platform_registry_v1_RegisterRequest, _platform_registry_v1_RegisterResponse, _platform_registry_v1_RegisterRequest__Output, _platform_registry_v1_RegisterResponse__Output>
}
