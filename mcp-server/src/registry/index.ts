// The tool registry: tool services register here over gRPC, and the catalog of their tools is read
// by tools/list and tools/call.
export { createToolRegistry, type ToolRegistry, type ToolRegistryOptions } from './tool-registry.ts';
export { registryBindFailure, type ServingRegistry } from './registry-server.ts';
export { RegistryError, registryErrorCatalog, type RegistryErrorCode } from './registry-errors.ts';
export { exposedNames, type ToolOrigin } from './exposed-names.ts';
export { toolLimits } from './service-tools.ts';
export { serviceNamePattern } from './registration-fields.ts';
