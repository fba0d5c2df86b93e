// A gRPC client of a tool service for tests, the way the gateway calls it: a token in the
// `authorization` metadata, arguments as JSON, a deadline; answers and status codes as values.
import * as grpc from '@grpc/grpc-js';
import { loadToolsProto, type CallToolResponse__Output, type Tool__Output } from '@platform/proto';

export type CallAnswer =
  | { readonly ok: true; readonly result: unknown; readonly isError: boolean; readonly text: string }
  | { readonly ok: false; readonly code: grpc.status; readonly codeName: string; readonly details: string };

export interface ToolClient {
  /** Calls `name` with `args` (an object, or raw JSON text) and `token` as the bearer (none when undefined). */
  call(
    name: string,
    args: unknown,
    token: string | undefined,
    options?: { deadlineMs?: number; requestId?: string; authorization?: string[] },
  ): Promise<CallAnswer>;
  list(): Promise<Tool__Output[]>;
  close(): void;
}

/** `credentials`: plaintext by default; a TLS test passes its own. */
export function toolClient(address: string, credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure()): ToolClient {
  const client = new (loadToolsProto().ToolService)(address, credentials);
  return {
    call(name, args, token, options = {}) {
      const metadata = new grpc.Metadata();
      for (const value of options.authorization ?? (token === undefined ? [] : [`Bearer ${token}`])) metadata.add('authorization', value);
      const argumentsJson = typeof args === 'string' ? args : JSON.stringify(args);
      const callOptions = options.deadlineMs === undefined ? {} : { deadline: Date.now() + options.deadlineMs };
      return new Promise((resolve) => {
        client.CallTool({ name, argumentsJson, requestId: options.requestId ?? '' }, metadata, callOptions, (error, response?: CallToolResponse__Output) => {
          if (error || !response) {
            const code = error?.code ?? grpc.status.UNKNOWN;
            resolve({ ok: false, code, codeName: grpc.status[code], details: error?.details ?? '' });
          } else {
            resolve({ ok: true, result: response.resultJson ? JSON.parse(response.resultJson) : undefined, isError: response.isError, text: response.text });
          }
        });
      });
    },
    list() {
      return new Promise((resolve, reject) => {
        client.ListTools({}, (error, response) => {
          if (error || !response) reject(error ?? new Error('no answer'));
          else resolve(response.tools);
        });
      });
    },
    close() {
      client.close();
    },
  };
}
