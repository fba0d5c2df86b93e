// A gRPC client of a tool service for tests, the way the gateway calls it: a token in the
// `authorization` metadata, arguments as JSON, a deadline, what the MCP client can take and the
// answers so far; the call's events, its result or questions, and status codes as values.
import * as grpc from '@grpc/grpc-js';
import {
  loadToolsProto,
  type CallToolEvent__Output,
  type ClientAbilities,
  type ContentBlock__Output,
  type InputRequest__Output,
  type Tool__Output,
} from '@platform/proto';

/** A tool call's answer: the result (or the questions it waits on) with the events before it, or the gRPC status it was refused with. */
export type CallAnswer =
  | {
      readonly ok: true;
      /** The structured content, parsed; undefined when there is none (or the call ended with questions). */
      readonly result: unknown;
      readonly isError: boolean;
      /** The text blocks, joined with newlines. */
      readonly text: string;
      readonly content: readonly ContentBlock__Output[];
      /** The questions the call ended with, by key; undefined when it ended with a result. */
      readonly inputRequired: Readonly<Record<string, InputRequest__Output>> | undefined;
      /** The progress and log events before the final one, in order. */
      readonly events: readonly CallToolEvent__Output[];
    }
  | { readonly ok: false; readonly code: grpc.status; readonly codeName: string; readonly details: string; readonly events: readonly CallToolEvent__Output[] };

/** How a test calls: a deadline, a request id, the raw `authorization` values, what the client can take, the answers so far. */
export interface ToolClientCallOptions {
  /** The call's gRPC deadline, from now; none when not given. */
  readonly deadlineMs?: number;
  /** The gateway's correlation id to send; empty (the service makes one) when not given. */
  readonly requestId?: string;
  /** The raw `authorization` values to send instead of `Bearer <token>` (none, several, malformed). */
  readonly authorization?: string[];
  /** What the MCP client behind the call can take (progress, log level, questions); nothing when not given. */
  readonly client?: ClientAbilities;
  /** Answers by question key: each the client's response (JSON-serialized here). */
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  /** Aborting it cancels the call. */
  readonly signal?: AbortSignal;
  /** Told of each progress or log event as it arrives. */
  readonly onEvent?: (event: CallToolEvent__Output) => void;
}

/** A gRPC client of a tool service, calling it as the gateway does. */
export interface ToolClient {
  /** Calls `name` with `args` (an object, or raw JSON text) and `token` as the bearer (none when undefined). */
  call(name: string, args: unknown, token: string | undefined, options?: ToolClientCallOptions): Promise<CallAnswer>;
  /** The service's tools, as ListTools answers. */
  list(): Promise<Tool__Output[]>;
  /** Closes the channel. */
  close(): void;
}

/**
 * A `ToolClient` of the tool service at `address` (host:port); `credentials`: plaintext by default,
 * a TLS test passes its own.
 *
 * @example
 * ```ts
 * const answer = await toolClient(serving.address).call('my_tool', { companyId: 1 }, token);
 * ```
 */
export function toolClient(address: string, credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure()): ToolClient {
  const client = new (loadToolsProto().ToolService)(address, credentials);
  return {
    call(name, args, token, options = {}) {
      const metadata = new grpc.Metadata();
      for (const value of options.authorization ?? (token === undefined ? [] : [`Bearer ${token}`])) metadata.add('authorization', value);
      const argumentsJson = typeof args === 'string' ? args : JSON.stringify(args);
      const callOptions = options.deadlineMs === undefined ? {} : { deadline: Date.now() + options.deadlineMs };
      const inputResponsesJson = Object.fromEntries(Object.entries(options.inputResponses ?? {}).map(([key, value]) => [key, JSON.stringify(value)]));
      const request = { name, argumentsJson, requestId: options.requestId ?? '', inputResponsesJson, ...(options.client && { client: options.client }) };
      return new Promise((resolve) => {
        const events: CallToolEvent__Output[] = [];
        let final: CallToolEvent__Output | undefined;
        const stream = client.CallToolStream(request, metadata, callOptions);
        const cancel = () => {
          stream.cancel();
        };
        options.signal?.addEventListener('abort', cancel, { once: true });
        stream.on('data', (event: CallToolEvent__Output) => {
          if (event.result || event.inputRequired) final = event;
          else {
            events.push(event);
            options.onEvent?.(event);
          }
        });
        stream.on('error', (error: grpc.ServiceError) => {
          options.signal?.removeEventListener('abort', cancel);
          resolve({ ok: false, code: error.code, codeName: grpc.status[error.code], details: error.details, events });
        });
        stream.on('end', () => {
          options.signal?.removeEventListener('abort', cancel);
          if (final?.inputRequired) {
            resolve({ ok: true, result: undefined, isError: false, text: '', content: [], inputRequired: final.inputRequired.requests, events });
            return;
          }
          const result = final?.result;
          if (!result) {
            resolve({ ok: false, code: grpc.status.UNKNOWN, codeName: 'UNKNOWN', details: 'the stream ended without a final event', events });
            return;
          }
          const text = result.content.flatMap((block) => (block.block === 'text' && block.text !== undefined ? [block.text] : [])).join('\n');
          resolve({
            ok: true,
            result: result.structuredContentJson ? JSON.parse(result.structuredContentJson) : undefined,
            isError: result.isError,
            text,
            content: result.content,
            inputRequired: undefined,
            events,
          });
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
