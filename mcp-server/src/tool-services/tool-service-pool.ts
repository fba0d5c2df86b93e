// The gateway's gRPC clients of the tool services, one channel per callback address (over TLS when
// configured; plaintext otherwise, where the registry admits only loopback addresses unless the
// operator trusts the network). A channel stays open while a live registration holds a lease on its
// address or a call is under way, and is closed when neither is left. A call carries the delegated
// token in `authorization` and nothing else of the caller's; its failures come back as values, never
// as exceptions. Calls go as CallToolStream (its progress and log events handed on as they arrive);
// an address whose service answers that with UNIMPLEMENTED (one built before it) is called with the
// first revision's unary CallTool from then on, and its answer read as a result.
import * as grpc from '@grpc/grpc-js';
import {
  loadToolsProto,
  type CallToolEvent__Output,
  type CallToolRequest,
  type CallToolResponse__Output,
  type ListToolsResponse__Output,
  type ToolLogMessage__Output,
  type ToolProgress__Output,
  type Tool__Output,
  type ToolServiceClient,
} from '@platform/proto';
import { tlsRefusalReason } from '@platform/tool-sdk';
import type { ToolServiceAnswer } from '../remote-tools.ts';
import { injectTraceContext, type Context } from '@platform/tool-sdk/observability';

/** What a call sends besides the token: the tool's own name, its arguments as JSON, the MCP request id, what the client can take, the answers so far. */
export type ToolCallRequest = Pick<CallToolRequest, 'client' | 'inputResponsesJson'> & {
  readonly name: string;
  readonly argumentsJson: string;
  readonly requestId: string;
};

/** An event of a running call: progress, or a log message for the client. */
export type ToolCallEvent = { readonly progress: ToolProgress__Output } | { readonly log: ToolLogMessage__Output };

export interface CallToolOptions {
  /** Time limit of the call, from now; the tool service sees it as the gRPC deadline. */
  readonly deadlineMs: number;
  /** Aborting it cancels the call, which then answers CANCELLED. */
  readonly signal?: AbortSignal;
  /** The trace context the call continues (its `traceparent` goes in the metadata); default the active one. */
  readonly traceContext?: Context;
  /** Told of each progress and log event as it arrives, before the answer. */
  readonly onEvent?: (event: ToolCallEvent) => void;
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
  /** The service answered CallToolStream with UNIMPLEMENTED: it is called with CallTool. */
  unary: boolean;
}

/** Most progress and log events taken from one call; later ones are not handed on. */
export const maxEventsPerCall = 10_000;

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

/** A failure as the pool reads it: the answer, and whether events had arrived (then the call is not sent again another way). */
type CallOutcome = ToolServiceAnswer | (Extract<ToolServiceAnswer, { ok: false }> & { readonly eventsSeen?: boolean });

/** The failure of a call as an answer: a refused TLS handshake said in words, an answer too large named as the gateway's own limit. */
function failedAnswer(error: grpc.ServiceError, readTooMuch: (error: grpc.ServiceError) => boolean, eventsSeen: boolean): CallOutcome {
  const tlsRefusal = error.code === grpc.status.UNAVAILABLE ? tlsRefusalReason(error.details) : undefined;
  if (tlsRefusal !== undefined) return { ok: false, code: error.code, details: inWords(error), tlsRefusal, eventsSeen };
  return { ok: false, code: error.code, details: readTooMuch(error) ? answerTooLarge : error.details, eventsSeen };
}

export function createToolServicePool(options: ToolServicePoolOptions = {}): ToolServicePool {
  const ToolService = loadToolsProto().ToolService;
  const maxAnswerBytes = options.maxAnswerBytes ?? 4 * 1024 * 1024;
  const channelOptions: grpc.ChannelOptions = { 'grpc.max_receive_message_length': maxAnswerBytes };
  // grpc-js words a refusal of what this side reads as the service words one of what it reads: the limit tells them apart.
  const readTooMuch = (error: grpc.ServiceError) =>
    error.code === grpc.status.RESOURCE_EXHAUSTED && new RegExp(`^Received message larger than max \\(\\d+ vs\\.? ${maxAnswerBytes}\\)`).test(error.details);
  const credentials = options.channelCredentials ?? grpc.credentials.createInsecure();

  /** The first revision's call: one answer, read as a result of text and structured content. */
  const callUnary = (client: ToolServiceClient, request: ToolCallRequest, metadata: grpc.Metadata, deadline: number, signal: AbortSignal | undefined) =>
    new Promise<CallOutcome>((resolve) => {
      const { name, argumentsJson, requestId } = request;
      const call = client.CallTool({ name, argumentsJson, requestId }, metadata, { deadline }, (error, response?: CallToolResponse__Output) => {
        signal?.removeEventListener('abort', cancel);
        if (error) resolve(failedAnswer(error, readTooMuch, false));
        else if (!response) resolve({ ok: false, code: grpc.status.INTERNAL, details: 'the tool service answered nothing' });
        else {
          const content = response.text === '' ? [] : [{ text: response.text, block: 'text' as const, annotations: null }];
          // Its text, or (with none) its JSON, is what the agent reads; its JSON object is the structured content.
          resolve({ ok: true, result: { content, structuredContentJson: response.resultJson, isError: response.isError } });
        }
      });
      function cancel() {
        call.cancel();
      }
      signal?.addEventListener('abort', cancel, { once: true });
    });

  /** The call as a stream: its events handed on as they arrive, then its final event. */
  const callStream = (
    client: ToolServiceClient,
    request: ToolCallRequest,
    metadata: grpc.Metadata,
    deadline: number,
    signal: AbortSignal | undefined,
    onEvent: ((event: ToolCallEvent) => void) | undefined,
  ) =>
    new Promise<CallOutcome>((resolve) => {
      const call = client.CallToolStream(request, metadata, { deadline });
      let events = 0;
      let final: CallOutcome | undefined;
      const cancel = () => {
        call.cancel();
      };
      signal?.addEventListener('abort', cancel, { once: true });
      call.on('data', (event: CallToolEvent__Output) => {
        if (final !== undefined) return;
        if (event.result) final = { ok: true, result: event.result };
        else if (event.inputRequired) final = { ok: true, inputRequired: event.inputRequired };
        else if (events < maxEventsPerCall) {
          events += 1;
          if (event.progress) onEvent?.({ progress: event.progress });
          else if (event.log) onEvent?.({ log: event.log });
        }
      });
      call.on('error', (error: grpc.ServiceError) => {
        signal?.removeEventListener('abort', cancel);
        resolve(failedAnswer(error, readTooMuch, events > 0 || final !== undefined));
      });
      call.on('end', () => {
        signal?.removeEventListener('abort', cancel);
        resolve(final ?? { ok: false, code: grpc.status.INTERNAL, details: 'the tool service ended the call without a result' });
      });
    });
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

    callTool(address, request, delegatedToken, { deadlineMs, signal, traceContext, onEvent }) {
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
      const send = async (unary: boolean, retried: boolean): Promise<CallOutcome> => {
        const answer = unary
          ? await callUnary(held.client, request, metadata, deadline, signal)
          : await callStream(held.client, request, metadata, deadline, signal, onEvent);
        // A service of the other revision at this address (built before CallToolStream, or upgraded since): once more, the other way.
        if (!answer.ok && answer.code === (grpc.status.UNIMPLEMENTED as number) && !('eventsSeen' in answer && answer.eventsSeen) && !retried) {
          held.unary = !unary;
          return send(!unary, true);
        }
        return answer;
      };
      return send(held.unary, false)
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
