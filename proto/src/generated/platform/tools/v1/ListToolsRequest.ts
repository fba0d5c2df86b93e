// Original file: platform/tools/v1/tool_service.proto


export interface ListToolsRequest {
}

export interface ListToolsRequest__Output {
}
