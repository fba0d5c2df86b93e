// The gateway's gRPC clients of the tool services, one channel per callback address (over TLS when
// configured; plaintext otherwise, where the registry admits only loopback addresses unless the
// operator trusts the network). A channel stays open while a live registration holds a lease on its
// address or a call is under way, and is closed when neither is left. A call carries the delegated
// token in `authorization` and nothing else of the caller's; its failures come back as values, never
// as exceptions. Calls go as CallToolStream (its progress and log events handed on as they arrive);
// an address whose service answers that with UNIMPLEMENTED (one built before it) is called with the
// first revision's unary CallTool from then on, and its answer read as a result.
import * as grpc from '@grpc/grpc-js';
import { loadToolsProto, type ListToolsResponse__Output, type Tool__Output, type ToolServiceClient } from '@platform/proto';
import type { ToolServiceAnswer } from '../remote-tools.ts';
import { injectTraceContext, type Context } from '@platform/tool-sdk/observability';
import {
  callStream,
  callTaskStream,
  callUnary,
  inWords,
  type CallOutcome,
  type TaskCallSettings,
  type ToolCallEvent,
  type ToolCallRequest,
} from './tool-service-calls.ts';

export interface CallToolOptions {
  /** Time limit of the call, from now; the tool service sees it as the gRPC deadline. */
  readonly deadlineMs: number;
  /** Aborting it cancels the call, which then answers CANCELLED. */
  readonly signal?: AbortSignal;
  /** The trace context the call continues (its `traceparent` goes in the metadata); default the active one. */
  readonly traceContext?: Context;
  /** Told of each progress and log event as it arrives, before the answer. */
  readonly onEvent?: (event: ToolCallEvent) => void;
  /** Makes it a call run as an MCP task (CallToolAsTask), which renews its token; a service without that method is called as a plain stream. */
  readonly task?: TaskCallSettings;
}

export interface ListToolsOptions {
  readonly deadlineMs: number;
}

/** A hold on an address's channel; releasing it more than once is harmless. */
export interface ToolServiceLease {
  release(): void;
}

export interface ToolServicePool {
  /** Keeps the channel to `address` open until the lease is released (a live registration). */
  lease(address: string): ToolServiceLease;
  /** The service's tools; rejects with a ToolServiceError carrying the gRPC status. */
  listTools(address: string, options: ListToolsOptions): Promise<Tool__Output[]>;
  /** Runs one tool with `delegatedToken` as the only credential; resolves with the answer or the status it failed with. */
  callTool(address: string, request: ToolCallRequest, delegatedToken: string, options: CallToolOptions): Promise<ToolServiceAnswer>;
  /** Addresses with an open channel now. */
  openAddresses(): string[];
  /** Closes every channel; later calls answer UNAVAILABLE. */
  close(): void;
}

export interface ToolServicePoolOptions {
  /** Largest answer accepted from a tool service. Default 4 MiB (grpc-js's own default). */
  readonly maxAnswerBytes?: number;
  /** How the tool services are dialled: TLS credentials (createGrpcTls) or, by default, plaintext. */
  readonly channelCredentials?: grpc.ChannelCredentials;
}

/** A failed ListTools: the gRPC status and what the service or grpc-js said. */
export class ToolServiceError extends Error {
  override readonly name = 'ToolServiceError';
  readonly code = 'TOOL_SERVICE_FAILED';
  /** The gRPC status the call ended with: the registry answers by it. */
  readonly status: grpc.status;
  readonly details: string;
  readonly address: string;

  constructor(address: string, status: grpc.status, details: string) {
    // A status a newer peer sends may have no name here.
    const statusName = (grpc.status as Record<number, string | undefined>)[status];
    super(`${address} answered ${statusName ?? String(status)}: ${details}`);
    this.address = address;
    this.status = status;
    this.details = details;
  }
}

interface Channel {
  readonly client: ToolServiceClient;
  /** Leases plus calls under way. */
  holds: number;
  /** The service answered CallToolStream with UNIMPLEMENTED: it is called with CallTool. */
  unary: boolean;
}

const shuttingDown = 'the gateway is shutting down';
const closedAnswer: ToolServiceAnswer = Object.freeze({ ok: false, code: grpc.status.UNAVAILABLE, details: shuttingDown });
const noTokenAnswer: ToolServiceAnswer = Object.freeze({
  ok: false,
  code: grpc.status.UNAUTHENTICATED,
  details: 'no delegated token; the tool service was not called',
});
const cancelledAnswer: ToolServiceAnswer = Object.freeze({ ok: false, code: grpc.status.CANCELLED, details: 'the call was cancelled before it was sent' });

function failureOf(error: unknown): { code: grpc.status; details: string } {
  const { code, details } = error as Partial<grpc.ServiceError>;
  if (typeof code === 'number') return { code, details: typeof details === 'string' ? details : '' };
  return { code: grpc.status.INTERNAL, details: 'the call could not be sent' };
}

export function createToolServicePool(options: ToolServicePoolOptions = {}): ToolServicePool {
  const ToolService = loadToolsProto().ToolService;
  const maxAnswerBytes = options.maxAnswerBytes ?? 4 * 1024 * 1024;
  const channelOptions: grpc.ChannelOptions = { 'grpc.max_receive_message_length': maxAnswerBytes };
  // grpc-js words a refusal of what this side reads as the service words one of what it reads: the limit tells them apart.
  const readTooMuch = (error: grpc.ServiceError) =>
    error.code === grpc.status.RESOURCE_EXHAUSTED && new RegExp(`^Received message larger than max \\(\\d+ vs\\.? ${maxAnswerBytes}\\)`).test(error.details);
  const credentials = options.channelCredentials ?? grpc.credentials.createInsecure();

  const channels = new Map<string, Channel>();
  let closed = false;

  const hold = (address: string): Channel => {
    let channel = channels.get(address);
    if (!channel) {
      channel = { client: new ToolService(address, credentials, channelOptions), holds: 0, unary: false };
      channels.set(address, channel);
    }
    channel.holds += 1;
    return channel;
  };

  const letGo = (address: string, channel: Channel): void => {
    channel.holds -= 1;
    if (channel.holds > 0 || channels.get(address) !== channel) return;
    channels.delete(address);
    channel.client.close();
  };

  return {
    lease(address) {
      if (closed) return { release: () => undefined };
      const channel = hold(address);
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          letGo(address, channel);
        },
      };
    },

    listTools(address, { deadlineMs }) {
      if (closed) return Promise.reject(new ToolServiceError(address, grpc.status.UNAVAILABLE, shuttingDown));
      return new Promise((resolve, reject) => {
        let channel: Channel | undefined;
        try {
          channel = hold(address);
          const held = channel;
          held.client.ListTools({}, { deadline: Date.now() + deadlineMs }, (error, response?: ListToolsResponse__Output) => {
            letGo(address, held);
            if (error) reject(new ToolServiceError(address, error.code, inWords(error)));
            else resolve(response?.tools ?? []);
          });
        } catch (error) {
          if (channel) letGo(address, channel);
          const { code, details } = failureOf(error);
          reject(new ToolServiceError(address, code, details));
        }
      });
    },

    callTool(address, request, delegatedToken, { deadlineMs, signal, traceContext, onEvent, task }) {
      if (closed) return Promise.resolve(closedAnswer);
      if (!delegatedToken) return Promise.resolve(noTokenAnswer);
      if (signal?.aborted) return Promise.resolve(cancelledAnswer);
      let held: Channel;
      const metadata = new grpc.Metadata();
      try {
        // A token metadata cannot carry, an address grpc-js cannot parse: a status, not an exception.
        metadata.set('authorization', `Bearer ${delegatedToken}`);
        injectTraceContext(metadata, traceContext);
        held = hold(address);
      } catch (error) {
        return Promise.resolve({ ok: false, ...failureOf(error) });
      }
      const deadline = Date.now() + deadlineMs;
      const settings = { metadata, deadline, signal, onEvent, readTooMuch };
      const send = async (unary: boolean, retried: boolean): Promise<CallOutcome> => {
        const answer = unary ? await callUnary(held.client, request, settings) : await callStream(held.client, request, settings);
        // A service of the other revision at this address (built before CallToolStream, or upgraded since): once more, the other way.
        if (!answer.ok && answer.code === (grpc.status.UNIMPLEMENTED as number) && !('eventsSeen' in answer && answer.eventsSeen) && !retried) {
          held.unary = !unary;
          return send(!unary, true);
        }
        return answer;
      };
      // A task's call: CallToolAsTask, or (a service without it, which never declares task support) the plain ways.
      const sent = task
        ? callTaskStream(held.client, request, settings, task).then((answer) =>
            !answer.ok && answer.code === (grpc.status.UNIMPLEMENTED as number) && !('eventsSeen' in answer && answer.eventsSeen)
              ? send(held.unary, false)
              : answer,
          )
        : send(held.unary, false);
      return sent
        .then((answer): ToolServiceAnswer => {
          if (answer.ok || !('eventsSeen' in answer)) return answer;
          const { eventsSeen: _seen, ...failed } = answer;
          return failed;
        })
        .finally(() => {
          letGo(address, held);
        });
    },

    openAddresses() {
      return [...channels.keys()];
    },

    close() {
      closed = true;
      for (const channel of channels.values()) channel.client.close();
      channels.clear();
    },
  };
}
