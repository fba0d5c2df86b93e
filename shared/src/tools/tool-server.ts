// Serves platform.tools.v1.ToolService over gRPC, with the standard health service and server
// reflection beside it: CallToolStream, whose events are the call's progress and log messages as
// they happen, then its result or its questions, and CallToolAsTask, the same call run as an MCP
// task whose delegated token the gateway renews (the first revision's unary CallTool is not served:
// the gateway falls back to it only for services built before). Each call's deadline and
// cancellation abort the tool's signal, and so does a call that ends with questions (the run that
// asked them has nothing more to do); a stop refuses new calls, lets running ones finish (up to a
// grace period) and only then returns.
import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { loadSync } from '@grpc/proto-loader';
import { HealthImplementation, protoPath as healthProtoPath } from 'grpc-health-check';
import {
  loadToolsProto,
  toolsPackageDefinition,
  type CallToolEvent,
  type CallToolRequest__Output,
  type LogLevel,
  type TaskCallInput__Output,
  type ToolServiceHandlers,
} from '@platform/proto';
import { bindFailure } from '../service/bind-failure.ts';
import { guardTlsHandshakes, serverCredentialsOf, type GrpcTls, type TlsRefusal } from '../grpc/tls.ts';
import { systemClock, type Clock } from '../time/clock.ts';
import { systemTimers, type Timers } from '../time/timers.ts';
import { ToolCallError, toolCallCatalog } from './tool-errors.ts';
import { clip } from '../text/short-text.ts';
import { maxDetailLength, type ToolRunner } from './tool-runner.ts';
import { serveTask, type RefuseCall, type RenewalQueue } from './task-call.ts';
import type { CallEvents } from './call-context.ts';

/** Where a call's events go: CallToolStream's answer stream, or CallToolAsTask's. */
type EventStream = grpc.ServerWritableStream<CallToolRequest__Output, CallToolEvent> | grpc.ServerDuplexStream<TaskCallInput__Output, CallToolEvent>;

/**
 * The call's progress and log messages, written to its stream as they happen. While the stream is
 * backed up (the gateway reads slower than the tool reports), log messages are dropped and only the
 * newest progress waits, written once the stream drains: a tool reporting in a tight loop cannot
 * fill the process's memory.
 */
function streamEvents(call: EventStream, asTask: boolean): CallEvents & { flush(): void } {
  let waitingProgress: CallToolEvent | undefined;
  const flush = () => {
    if (waitingProgress === undefined || call.writableEnded) return;
    const event = waitingProgress;
    waitingProgress = undefined;
    call.write(event);
  };
  call.on('drain', flush);
  return {
    progress(progress, total, message) {
      if (call.writableEnded) return;
      const event: CallToolEvent = { progress: { progress, ...(total !== undefined && { total }), message } };
      if (call.writableNeedDrain) waitingProgress = event;
      else call.write(event);
    },
    log(level, dataJson, logger) {
      if (call.writableEnded || call.writableNeedDrain) return;
      call.write({ log: { level: `LOG_LEVEL_${level.toUpperCase()}` as LogLevel, dataJson, logger } });
    },
    flush,
    ...(asTask && {
      taskStarted() {
        if (!call.writableEnded) call.write({ taskStarted: {} });
      },
    }),
  };
}

/** The gRPC service's full name, as health checks and reflection know it. */
export const toolServiceName = 'platform.tools.v1.ToolService';

/**
 * The health service name that is SERVING only while the gateway holds this service's registration:
 * what a container's health check asks, so that what depends on the tool service starts once its
 * tools are offered to clients, not merely once its port is open.
 */
export const registrationHealthName = 'gateway-registration';

/** Largest CallTool request accepted: arguments are small JSON objects, so 1 MiB is far beyond any real one. */
export const maxRequestBytes = 1024 * 1024;

/** A tool server listening: its address, and how to stop it. */
export interface RunningToolServer {
  /** The address bound, host:port (the real port when 0 was asked). */
  readonly address: string;
  readonly port: number;
  /** Calls running now. */
  readonly runningCalls: number;
  /** Sets what the health service answers for `registrationHealthName`. */
  setRegistered(registered: boolean): void;
  /** Refuses new calls, waits up to `graceMs` for running ones, then cancels what is left. */
  close(graceMs?: number): Promise<void>;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** How much earlier than ours a client's deadline may pass: the request's time in transit, on a loaded machine. */
const deadlineTransitAllowanceMs = 250;

function deadlineOf(call: { getDeadline(): grpc.Deadline }): number {
  const deadline = call.getDeadline();
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

/** The clock and timers a tool server's deadlines run on. */
export interface ToolServerTime {
  /** Judges how close to its deadline a call is; default the system's. */
  readonly clock?: Clock;
  /** Arms each call's deadline; a test passes its manual clock (with `clock`) and moves it. */
  readonly timers?: Timers;
}

/** How a tool server's gRPC is carried: over TLS when given, and who hears of a refused handshake. */
export interface ToolServerTransport {
  /** gRPC over TLS (GRPC_TLS_*); plaintext without it. */
  readonly tls?: GrpcTls | undefined;
  /** Told of every client whose TLS handshake was refused (which, and why). */
  readonly onTlsRefusal?: (refusal: TlsRefusal) => void;
}

/** Serves a `ToolRunner` over gRPC, with the standard health service and server reflection. */
export async function startToolServer(
  runner: ToolRunner,
  listenAddress: string,
  time: ToolServerTime = {},
  transport: ToolServerTransport = {},
): Promise<RunningToolServer> {
  const { clock = systemClock, timers = systemTimers } = time;
  const server = new grpc.Server({ 'grpc.max_receive_message_length': maxRequestBytes });
  let runningCalls = 0;
  let idle: (() => void) | undefined;

  // CallTool, the first revision's unary call, is left to grpc-js, which answers UNIMPLEMENTED.
  const handlers: Pick<ToolServiceHandlers, 'ListTools' | 'CallToolStream' | 'CallToolAsTask'> = {
    ListTools: (_call, callback) => {
      callback(null, { tools: [...runner.listing] });
    },
    CallToolStream: (call) => {
      runCall(call, call.request);
    },
    CallToolAsTask: (stream) => {
      serveTask(stream, runCall);
    },
  };

  /**
   * Runs `request` and writes its events and final event to `stream`: the deadline and a real
   * cancellation abort the tool's signal. Returns how to end the call early with a refusal status.
   */
  const runCall = (stream: EventStream, request: CallToolRequest__Output, renewals?: RenewalQueue): RefuseCall => {
    runningCalls += 1;
    const controller = new AbortController();
    const deadline = deadlineOf(stream);
    const expire = () => {
      controller.abort(new ToolCallError('DEADLINE_EXCEEDED'));
    };
    const cancelDeadline = Number.isFinite(deadline) ? timers.after(Math.max(0, deadline - clock()), expire) : undefined;
    // grpc-js reports 'cancelled' for every stream that closes, answered or not: only a call
    // still running is aborted by it. A client ends the stream at its own deadline, which is
    // earlier than ours by the time the request took to arrive (the timeout travels as a
    // duration): a cancellation that close to the deadline is the deadline.
    let finished = false;
    stream.once('cancelled', () => {
      if (finished) return;
      if (clock() >= deadline - deadlineTransitAllowanceMs) expire();
      else controller.abort(new ToolCallError('CANCELLED'));
    });
    const events = streamEvents(stream, renewals !== undefined);
    void runner
      .call(
        {
          name: request.name,
          argumentsJson: request.argumentsJson,
          requestId: request.requestId,
          authorization: stream.metadata.get('authorization').map(String),
          signal: controller.signal,
          traceContext: { traceparent: stream.metadata.get('traceparent')[0]?.toString(), tracestate: stream.metadata.get('tracestate')[0]?.toString() },
          client: request.client,
          inputResponses: request.inputResponsesJson,
          ...(renewals && { renewals }),
        },
        events,
      )
      .then((outcome) => {
        if (finished) return;
        finished = true;
        if ('refusal' in outcome) {
          stream.emit('error', { code: toolCallCatalog[outcome.refusal.code].status, details: clip(outcome.refusal.message, maxDetailLength) });
          return;
        }
        events.flush();
        if ('result' in outcome) stream.write({ result: outcome.result });
        else {
          stream.write({ inputRequired: outcome.inputRequired });
          // The run waits on its questions for ever: its signal tells it (and its platform requests) to stop.
          controller.abort(new ToolCallError('CANCELLED', 'the call ended with questions for the person; it runs again with their answers'));
        }
        stream.end();
      })
      .finally(() => {
        renewals?.close();
        cancelDeadline?.();
        runningCalls -= 1;
        if (runningCalls === 0) idle?.();
      });
    return (code, details) => {
      if (finished) return;
      finished = true;
      controller.abort(new ToolCallError('CANCELLED', details));
      stream.emit('error', { code, details });
    };
  };

  server.addService(loadToolsProto().ToolService.service, handlers);
  const health = new HealthImplementation({ '': 'SERVING', [toolServiceName]: 'SERVING', [registrationHealthName]: 'NOT_SERVING' });
  health.addToServer(server);
  const healthDefinition = loadSync(healthProtoPath, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
  new ReflectionService({ ...toolsPackageDefinition(), ...healthDefinition }).addToServer(server);

  const { tls } = transport;
  await tls?.ready();
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(listenAddress, serverCredentialsOf(tls), (error, bound) => {
      if (error) reject(bindFailure(error, listenAddress, 'CALLBACK_ADDRESS'));
      else resolve(bound);
    });
  });
  if (tls) {
    try {
      guardTlsHandshakes(server, tls, transport.onTlsRefusal ?? (() => undefined));
    } catch (error) {
      server.forceShutdown();
      throw error;
    }
  }
  const host = listenAddress.slice(0, listenAddress.lastIndexOf(':'));

  return {
    address: `${host}:${port}`,
    port,
    get runningCalls() {
      return runningCalls;
    },
    setRegistered(registered) {
      health.setStatus(registrationHealthName, registered ? 'SERVING' : 'NOT_SERVING');
    },
    async close(graceMs = 10_000) {
      health.setStatus('', 'NOT_SERVING');
      health.setStatus(toolServiceName, 'NOT_SERVING');
      health.setStatus(registrationHealthName, 'NOT_SERVING');
      const shutDown = new Promise<void>((resolve) => {
        server.tryShutdown(() => {
          resolve();
        });
      });
      const drained = new Promise<void>((resolve) => {
        if (runningCalls === 0) resolve();
        else idle = resolve;
      });
      await Promise.race([drained, delay(graceMs)]);
      // Tool calls are done (or out of time); streams that never end on their own (a health Watch)
      // are cut once the last answers have had a moment to leave.
      await Promise.race([shutDown, delay(runningCalls === 0 ? 250 : 0)]);
      server.forceShutdown();
    },
  };
}
