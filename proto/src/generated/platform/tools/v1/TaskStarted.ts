// Original file: platform/tools/v1/tool_service.proto


export interface TaskStarted {
}

export interface TaskStarted__Output {
}
