// One call to a tool service, either way it can be made: CallToolStream (its progress and log events
// handed on as they arrive, then its final event) or, to a service built before it, the first
// revision's unary CallTool, whose answer is read as a result. Failures come back as values.
import * as grpc from '@grpc/grpc-js';
import type {
  CallToolEvent__Output,
  CallToolRequest,
  CallToolResponse__Output,
  TaskCallInput,
  ToolLogMessage__Output,
  ToolProgress__Output,
  ToolServiceClient,
} from '@platform/proto';
import { tlsRefusalReason } from '@platform/tool-sdk/internal';
import type { ToolServiceAnswer } from '../remote-tools.ts';

/** What a call sends besides the token: the tool's own name, its arguments as JSON, the MCP request id, what the client can take, the answers so far. */
export type ToolCallRequest = Pick<CallToolRequest, 'client' | 'inputResponsesJson'> & {
  readonly name: string;
  readonly argumentsJson: string;
  readonly requestId: string;
};

/** An event of a running call: progress, or a log message for the client. */
export type ToolCallEvent = { readonly progress: ToolProgress__Output } | { readonly log: ToolLogMessage__Output };

/** Most progress and log events taken from one call; later ones are not handed on. */
export const maxEventsPerCall = 10_000;

/** The details of a CallTool whose answer was larger than the gateway reads (its own limit, not the service's). */
export const answerTooLarge = 'the tool service answered more than the gateway reads';

/** How one call is made: its metadata (the token, the trace), its deadline, its cancellation, where its events go. */
export interface CallSettings {
  readonly metadata: grpc.Metadata;
  /** Epoch milliseconds. */
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;
  readonly onEvent: ((event: ToolCallEvent) => void) | undefined;
  /** Whether a RESOURCE_EXHAUSTED is this side's own limit on what it reads. */
  readonly readTooMuch: (error: grpc.ServiceError) => boolean;
}

/** A call run as an MCP task (CallToolAsTask): told where it becomes a task, handed fresh delegated tokens on the way. */
export interface TaskCallSettings {
  /** Told once, when the tool service says the call runs as a task from now on. */
  readonly onTaskStarted: () => void;
  /** Given the function that sends a fresh delegated token to the running call; it does nothing once the call is over. */
  readonly onRenewable: (renew: (delegatedToken: string) => void) => void;
}

/** A failure's details, a refused TLS handshake said in words before what grpc-js said. */
export function inWords(error: grpc.ServiceError | null): string {
  if (!error) return '';
  const tls = error.code === grpc.status.UNAVAILABLE ? tlsRefusalReason(error.details) : undefined;
  return tls === undefined ? error.details : `the gateway refused the TLS connection: ${tls} (${error.details})`;
}

/** A failure as the pool reads it: the answer, and whether events had arrived (then the call is not sent again another way). */
export type CallOutcome = ToolServiceAnswer | (Extract<ToolServiceAnswer, { ok: false }> & { readonly eventsSeen?: boolean });

/** The failure of a call as an answer: a refused TLS handshake said in words, an answer too large named as the gateway's own limit. */
function failedAnswer(error: grpc.ServiceError, readTooMuch: (error: grpc.ServiceError) => boolean, eventsSeen: boolean): CallOutcome {
  const tlsRefusal = error.code === grpc.status.UNAVAILABLE ? tlsRefusalReason(error.details) : undefined;
  if (tlsRefusal !== undefined) return { ok: false, code: error.code, details: inWords(error), tlsRefusal, eventsSeen };
  return { ok: false, code: error.code, details: readTooMuch(error) ? answerTooLarge : error.details, eventsSeen };
}

/** The first revision's call: one answer, read as a result of text and structured content. */
export const callUnary = (client: ToolServiceClient, request: ToolCallRequest, { metadata, deadline, signal, readTooMuch }: CallSettings) =>
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
export const callStream = (client: ToolServiceClient, request: ToolCallRequest, settings: CallSettings) =>
  readEvents(client.CallToolStream(request, settings.metadata, { deadline: settings.deadline }), settings);

/** The call run as a task (CallToolAsTask): the request first, then each fresh delegated token, until the call is over. */
export function callTaskStream(client: ToolServiceClient, request: ToolCallRequest, settings: CallSettings, task: TaskCallSettings): Promise<CallOutcome> {
  const call = client.CallToolAsTask(settings.metadata, { deadline: settings.deadline });
  call.write({ call: request });
  task.onRenewable((delegatedToken) => {
    if (!call.writableEnded && !call.destroyed) call.write({ renewal: { delegatedToken } });
  });
  // This side is done writing once the call is over, however it ended.
  return readEvents(call, settings, task.onTaskStarted).finally(() => {
    if (!call.writableEnded) call.end();
  });
}

/** The events of a call as they arrive, then its final event, or the status it failed with. */
const readEvents = (
  call: grpc.ClientReadableStream<CallToolEvent__Output> | grpc.ClientDuplexStream<TaskCallInput, CallToolEvent__Output>,
  { signal, onEvent, readTooMuch }: CallSettings,
  onTaskStarted?: () => void,
) =>
  new Promise<CallOutcome>((resolve) => {
    let events = 0;
    let started = false;
    let final: CallOutcome | undefined;
    const cancel = () => {
      call.cancel();
    };
    signal?.addEventListener('abort', cancel, { once: true });
    call.on('data', (event: CallToolEvent__Output) => {
      if (final !== undefined) return;
      if (event.result) final = { ok: true, result: event.result };
      else if (event.inputRequired) final = { ok: true, inputRequired: event.inputRequired };
      else if (event.taskStarted) {
        // Once, and only on a call run as a task.
        if (!started && onTaskStarted) onTaskStarted();
        started = true;
      } else if (events < maxEventsPerCall) {
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
