// The gateway's gRPC clients of the tool services.
export { answerTooLarge, maxEventsPerCall, type TaskCallSettings, type ToolCallEvent, type ToolCallRequest } from './tool-service-calls.ts';
export {
  createToolServicePool,
  ToolServiceError,
  type CallToolOptions,
  type ListToolsOptions,
  type ToolServiceLease,
  type ToolServicePool,
  type ToolServicePoolOptions,
} from './tool-service-pool.ts';
