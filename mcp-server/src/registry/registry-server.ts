// The ToolRegistry's gRPC edge: every call is authenticated by the app's token before anything
// else, answered with a status from the registry's catalog, and logged in one line (method,
// service, app, registration, outcome, duration; never a token).
import * as grpc from '@grpc/grpc-js';
import type { Logger, Timers } from '@platform/tool-sdk';
import { bindFailure, guardTlsHandshakes, isLoopbackHost, serverCredentialsOf, type GrpcTls } from '@platform/tool-sdk/internal';
import { loadRegistryProto, type ToolRegistryHandlers } from '@platform/proto';
import type { AppCaller, AppTokenCheck } from './app-token-check.ts';
import { createHandshakeRefusalLog } from './handshake-refusals.ts';
import type { CallNote, Registrations } from './registrations.ts';
import { RegistryError, statusOf } from './registry-errors.ts';

export interface RegistryServerOptions {
  readonly registrations: Registrations;
  readonly checkApp: AppTokenCheck;
  readonly logger: Logger;
  readonly grpcPlaintextOffLoopback: boolean;
  /** Serve over TLS (any address); plaintext without it. */
  readonly tls?: GrpcTls | undefined;
  /** Ends the intervals refused handshakes are counted over (handshake-refusals.ts); a test passes its manual clock. */
  readonly timers?: Timers | undefined;
}

export interface ServingRegistry {
  /** The address bound, host:port (the real port when 0 was asked). */
  readonly address: string;
  /** Refuses new calls, lets running ones finish (briefly), then stops. */
  close(): Promise<void>;
}

/** Registry requests are a few short strings; nothing larger is read. */
const maxRequestBytes = 64 * 1024;
const closeGraceMs = 2_000;

type Method = 'Register' | 'Heartbeat' | 'Deregister';

const hostOf = (address: string) => address.slice(0, address.lastIndexOf(':'));

export async function startRegistryServer(listenAddress: string, options: RegistryServerOptions): Promise<ServingRegistry> {
  const { registrations, checkApp, logger, grpcPlaintextOffLoopback, tls } = options;
  if (!tls && !grpcPlaintextOffLoopback && !isLoopbackHost(hostOf(listenAddress).toLowerCase())) {
    throw new Error(
      `The tool registry may listen only on a loopback address (got ${listenAddress}): app tokens reach it without TLS; ` +
        'set GRPC_PLAINTEXT_OFF_LOOPBACK=true only on a network you trust.',
    );
  }

  const log = (method: Method, note: CallNote, started: number, error?: unknown) => {
    const durationMs = Math.round((performance.now() - started) * 10) / 10;
    const registrationId = note.registrationId?.slice(0, 64);
    const fields = { method, serviceName: note.serviceName, appClientId: note.appClientId, registrationId, durationMs };
    if (error === undefined) {
      // A heartbeat every third of a time to live per service would drown the rest at info.
      logger[method === 'Heartbeat' ? 'debug' : 'info']({ ...fields, outcome: 'OK', replaced: note.replaced }, `${method} answered`);
      return;
    }
    const { code, details, outcome } = statusOf(error);
    if (outcome === 'INTERNAL') {
      logger.error({ ...fields, outcome: grpc.status[code], err: error }, `${method} failed`);
      return;
    }
    const cause = error instanceof RegistryError && error.cause instanceof Error ? error.cause.message : undefined;
    // A registration the gateway forgot (a restart, an expiry) is the SDK's cue to register again, not trouble.
    logger[outcome === 'REGISTRATION_NOT_FOUND' ? 'info' : 'warn'](
      { ...fields, outcome: grpc.status[code], refusal: outcome, reason: details, cause },
      `${method} refused`,
    );
  };

  /** One unary method: authenticate, run, answer, log. */
  const unary =
    <Request, Response>(
      method: Method,
      run: (caller: AppCaller, call: grpc.ServerUnaryCall<Request, Response>, note: CallNote) => Promise<Response> | Response,
    ) =>
    (call: grpc.ServerUnaryCall<Request, Response>, callback: grpc.sendUnaryData<Response>): void => {
      const started = performance.now();
      const note: CallNote = {};
      void (async () => {
        try {
          const caller = await checkApp(call.metadata.get('authorization'));
          note.appClientId = caller.clientId;
          const response = await run(caller, call, note);
          callback(null, response);
          log(method, note, started);
        } catch (error) {
          const { code, details } = statusOf(error);
          callback({ code, details });
          log(method, note, started, error);
        }
      })();
    };

  const handlers: ToolRegistryHandlers = {
    Register: unary('Register', (caller, call, note) => {
      const deadline = call.getDeadline();
      const remainingMs = (deadline instanceof Date ? deadline.getTime() : deadline) - Date.now();
      return registrations.register(caller, call.request, { remainingMs, cancelled: () => call.cancelled }, note);
    }),
    Heartbeat: unary('Heartbeat', (caller, call, note) => registrations.heartbeat(caller, call.request, note)),
    Deregister: unary('Deregister', async (caller, call, note) => {
      await registrations.deregister(caller, call.request, note);
      return {};
    }),
  };

  const server = new grpc.Server({ 'grpc.max_receive_message_length': maxRequestBytes });
  server.addService(loadRegistryProto().ToolRegistry.service, handlers);
  await tls?.ready();
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(listenAddress, serverCredentialsOf(tls), (error, bound) => {
      if (error) {
        server.forceShutdown();
        reject(bindFailure(error, listenAddress, 'REGISTRY_ADDRESS'));
      } else resolve(bound);
    });
  });
  // A refused tool service never got to send its app token: nothing of it reached the registry.
  const refusals = createHandshakeRefusalLog({ logger, ...(options.timers && { timers: options.timers }) });
  if (tls) {
    try {
      guardTlsHandshakes(server, tls, (refusal) => {
        refusals.refused(refusal);
      });
    } catch (error) {
      server.forceShutdown();
      throw error;
    }
  }
  const address = `${hostOf(listenAddress)}:${port}`;
  const transport = tls ? (tls.requireClientCert ? 'mutual TLS' : 'TLS') : 'plaintext';
  logger.info({ address, transport }, `the tool registry is listening (${transport})`);

  let closing: Promise<void> | undefined;
  return {
    address,
    close() {
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, closeGraceMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }).finally(() => {
        refusals.close();
      });
      return closing;
    },
  };
}
