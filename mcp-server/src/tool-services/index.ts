// The gateway's gRPC clients of the tool services.
export {
  answerTooLarge,
  createToolServicePool,
  ToolServiceError,
  type CallToolOptions,
  type ListToolsOptions,
  maxEventsPerCall,
  type ToolCallEvent,
  type ToolCallRequest,
  type ToolServiceLease,
  type ToolServicePool,
  type ToolServicePoolOptions,
} from './tool-service-pool.ts';
