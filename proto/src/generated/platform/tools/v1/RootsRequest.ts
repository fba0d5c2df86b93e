// Original file: platform/tools/v1/tool_service.proto


export interface RootsRequest {
}

export interface RootsRequest__Output {
}
