// Original file: platform/registry/v1/tool_registry.proto


export interface DeregisterResponse {
}

export interface DeregisterResponse__Output {
}
