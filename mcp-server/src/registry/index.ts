// The tool registry: tool services register here over gRPC, and the catalog of their tools is read
// by tools/list and tools/call.
export { createToolRegistry, type ToolRegistry, type ToolRegistryOptions } from './tool-registry.ts';
export { type ServingRegistry } from './registry-server.ts';
export { defaultCatalogLimits, type CatalogLimits } from './catalog-limits.ts';
export { type RegistrationStore } from './registration-store.ts';
export { openPostgresRegistrationStore, type PostgresRegistrationStoreOptions } from './postgres/postgres-registration-store.ts';
export { createTokenSeal, type TokenSeal } from './postgres/token-seal.ts';
export { cidrProblem, loopbackNetworks } from './callback-networks.ts';
