// The gateway's gRPC clients of the tool services, one channel per callback address (over TLS when
// configured; plaintext otherwise, where the registry admits only loopback addresses unless the
// operator trusts the network). A channel
// stays open while a live registration holds a lease on its address or a call is under way, and
// is closed when neither is left. CallTool carries the delegated token in `authorization` and
// nothing else of the caller's; its failures come back as values, never as exceptions.
import * as grpc from '@grpc/grpc-js';
import { loadToolsProto, type CallToolResponse__Output, type ListToolsResponse__Output, type Tool__Output, type ToolServiceClient } from '@platform/proto';
import { tlsRefusalReason } from '@platform/tool-sdk';
import type { ToolServiceAnswer } from '../remote-tools.ts';
import { injectTraceContext, type Context } from '@platform/tool-sdk/observability';

/** What CallTool sends besides the token: the tool's own name, its arguments as JSON, the MCP request id. */
export interface ToolCallRequest {
  readonly name: string;
  readonly argumentsJson: string;
  readonly requestId: string;
}

export interface CallToolOptions {
  /** Time limit of the call, from now; the tool service sees it as the gRPC deadline. */
  readonly deadlineMs: number;
  /** Aborting it cancels the call, which then answers CANCELLED. */
  readonly signal?: AbortSignal;
  /** The trace context the call continues (its `traceparent` goes in the metadata); default the active one. */
  readonly traceContext?: Context;
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
  readonly code: grpc.status;
  readonly details: string;
  readonly address: string;

  constructor(address: string, code: grpc.status, details: string) {
    // A status a newer peer sends may have no name here.
    const codeName = (grpc.status as Record<number, string | undefined>)[code];
    super(`${address} answered ${codeName ?? String(code)}: ${details}`);
    this.address = address;
    this.code = code;
    this.details = details;
  }
}

interface Channel {
  readonly client: ToolServiceClient;
  /** Leases plus calls under way. */
  holds: number;
}

const shuttingDown = 'the gateway is shutting down';
/** The details of a CallTool whose answer was larger than the gateway reads (its own limit, not the service's). */
export const answerTooLarge = 'the tool service answered more than the gateway reads';
const closedAnswer: ToolServiceAnswer = Object.freeze({ ok: false, code: grpc.status.UNAVAILABLE, details: shuttingDown });
const noTokenAnswer: ToolServiceAnswer = Object.freeze({
  ok: false,
  code: grpc.status.UNAUTHENTICATED,
  details: 'no delegated token; the tool service was not called',
});
const cancelledAnswer: ToolServiceAnswer = Object.freeze({ ok: false, code: grpc.status.CANCELLED, details: 'the call was cancelled before it was sent' });

/** A failure's details, a refused TLS handshake said in words before what grpc-js said. */
function inWords(error: grpc.ServiceError | null): string {
  if (!error) return '';
  const tls = error.code === grpc.status.UNAVAILABLE ? tlsRefusalReason(error.details) : undefined;
  return tls === undefined ? error.details : `the gateway refused the TLS connection: ${tls} (${error.details})`;
}

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
      channel = { client: new ToolService(address, credentials, channelOptions), holds: 0 };
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

    callTool(address, request, delegatedToken, { deadlineMs, signal, traceContext }) {
      if (closed) return Promise.resolve(closedAnswer);
      if (!delegatedToken) return Promise.resolve(noTokenAnswer);
      if (signal?.aborted) return Promise.resolve(cancelledAnswer);
      return new Promise((resolve) => {
        let channel: Channel | undefined;
        try {
          const metadata = new grpc.Metadata();
          metadata.set('authorization', `Bearer ${delegatedToken}`);
          injectTraceContext(metadata, traceContext);
          channel = hold(address);
          const held = channel;
          const call = held.client.CallTool(request, metadata, { deadline: Date.now() + deadlineMs }, (error, response?: CallToolResponse__Output) => {
            signal?.removeEventListener('abort', cancel);
            letGo(address, held);
            const tlsRefusal = error?.code === grpc.status.UNAVAILABLE ? tlsRefusalReason(error.details) : undefined;
            if (tlsRefusal !== undefined) resolve({ ok: false, code: error?.code ?? grpc.status.UNAVAILABLE, details: inWords(error), tlsRefusal });
            else if (error) resolve({ ok: false, code: error.code, details: readTooMuch(error) ? answerTooLarge : error.details });
            else if (!response) resolve({ ok: false, code: grpc.status.INTERNAL, details: 'the tool service answered nothing' });
            else resolve({ ok: true, resultJson: response.resultJson, isError: response.isError, text: response.text });
          });
          function cancel() {
            call.cancel();
          }
          signal?.addEventListener('abort', cancel, { once: true });
        } catch (error) {
          if (channel) letGo(address, channel);
          resolve({ ok: false, ...failureOf(error) });
        }
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
