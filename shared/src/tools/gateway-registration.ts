// Keeps a tool service registered at the gateway's ToolRegistry: Register, then a Heartbeat well
// before the granted time to live runs out, Register again when the gateway has forgotten the
// registration (NOT_FOUND, as after a restart), retries with backoff while the gateway is down,
// and Deregister on stop. Every call carries a freshly asked app token, never a held one; the
// service keeps serving whatever happens here.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { loadRegistryProto, type HeartbeatResponse__Output, type RegisterResponse__Output, type ToolRegistryClient } from '@platform/proto';
import { tlsRefusalReason } from '../grpc/tls.ts';
import { systemTimers, type Timers } from '../time/timers.ts';

/** Where and how a service registers: the gateway, its name and address, its tools, the app token, timing. */
export interface GatewayRegistrationOptions {
  /** The registry, host:port. */
  readonly gatewayAddress: string;
  /** The name the service registers under (`SERVICE_NAME`). */
  readonly serviceName: string;
  /** Where the gateway reaches this service, host:port. */
  readonly callbackAddress: string;
  /** The time to live asked for; the gateway may grant less. */
  readonly ttlSeconds: number;
  /** The app's client-credentials token, asked for before every call. */
  readonly accessToken: () => Promise<string>;
  /** Where the registration's progress and failures are logged. */
  readonly logger: Logger;
  /** First and largest wait between failed attempts. Default 500 ms and 30 s. */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Time limit of one registry call. Default 5 s. */
  readonly callTimeoutMs?: number;
  /** How the registry is reached: TLS credentials (createGrpcTls) or, by default, plaintext. */
  readonly channelCredentials?: grpc.ChannelCredentials;
  /** Times the waits between calls; a test passes a manual clock and moves it. */
  readonly timers?: Timers;
  /** Told when the gateway accepts a Register (true), and when the registration is gone: forgotten by the gateway, or withdrawn at stop (false). */
  readonly onRegisteredChange?: (registered: boolean) => void;
}

/** Whether the service is registered now, and the last failure if not. */
export interface RegistrationState {
  /** The gateway's id of the current registration; undefined while not registered. */
  readonly registrationId: string | undefined;
  /** The time to live the gateway last granted, in seconds. */
  readonly grantedTtlSeconds: number | undefined;
  /** Successful Register and Heartbeat calls so far. */
  readonly registrations: number;
  /** Successful Heartbeat calls so far. */
  readonly heartbeats: number;
}

/** A service's registration at the gateway, kept alive by heartbeats until closed. */
export interface GatewayRegistration {
  /** Starts registering in the background; resolves at once. */
  start(): void;
  /** Registers again now, so the gateway lists the service's tools anew (they changed); the registration it replaces goes with it. */
  announce(): void;
  /** Stops heartbeats and deregisters (best effort, within the call time limit). */
  stop(): Promise<void>;
  /** Where the registration stands now. */
  readonly state: RegistrationState;
}

/** Wait before attempt `failures + 1`: doubling from initialMs up to maxMs, with jitter so restarted services do not march in step. */
export function backoffDelay(failures: number, initialMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** The longest wait between heartbeats: well within what a timer holds (Node fires one past 2^31 - 1 ms at once). */
const maxHeartbeatDelayMs = 10 * 60_000;

/** The heartbeat interval for a granted time to live: a third of it, so two heartbeats may fail before it lapses. */
export function heartbeatDelay(grantedTtlSeconds: number): number {
  return Math.min(maxHeartbeatDelayMs, Math.max(100, Math.floor((grantedTtlSeconds * 1000) / 3)));
}

/**
 * What to check when the gateway closed the connection while it was being set up (grpc-js's
 * "Failed to connect"): the gateway's log is seldom at hand, and the likely causes are this
 * service's settings, so they are named, by whether the service dials with TLS.
 */
function closedAtSetUp(gatewayAddress: string, overTls: boolean): string {
  return overTls
    ? `the gateway at ${gatewayAddress} closed the connection during the TLS handshake: it most likely refused this service's certificate. ` +
        "Check that GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE are a certificate and key issued by the gateway's CA (against npm start's stack: npm run tool-env issues one), " +
        "that GRPC_TLS_CA_FILE is that CA, and that GATEWAY_ADDRESS names the gateway's registry"
    : `the gateway at ${gatewayAddress} closed the connection as it was set up: it most likely requires TLS, and this service dials in plaintext (no GRPC_TLS_* set). ` +
        "Set GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE to the gateway's CA and a certificate it issued (against npm start's stack: npm run tool-env writes them into a .env), " +
        "and check that GATEWAY_ADDRESS names the gateway's registry";
}

/** A failure in one line: a gRPC status by its name and details, anything else by its message. */
function reasonOf(error: unknown, gatewayAddress: string, overTls: boolean): string {
  const { code, details } = error as { code?: unknown; details?: unknown };
  if (typeof code === 'number' && typeof details === 'string') {
    // A refused TLS handshake in words first: grpc-js says only that no connection was established.
    const unavailable = code === (grpc.status.UNAVAILABLE as number);
    const tls = !unavailable ? undefined : /Last error: Failed to connect/i.test(details) ? closedAtSetUp(gatewayAddress, overTls) : tlsRefusalReason(details);
    return `${grpc.status[code] ?? code}: ${tls === undefined ? details : `${tls} (${details})`}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Registers at the gateway, then heartbeats; retries with backoff while the gateway is away. */
export function createGatewayRegistration(options: GatewayRegistrationOptions): GatewayRegistration {
  const { gatewayAddress, serviceName, callbackAddress, ttlSeconds, accessToken, logger } = options;
  const { initialMs, maxMs } = options.backoff ?? { initialMs: 500, maxMs: 30_000 };
  const callTimeoutMs = options.callTimeoutMs ?? 5_000;
  const timers = options.timers ?? systemTimers;
  const Registry = loadRegistryProto().ToolRegistry;
  const credentials = options.channelCredentials ?? grpc.credentials.createInsecure();
  const client: ToolRegistryClient = new Registry(gatewayAddress, credentials);
  const overTls = credentials._isSecure();

  let registrationId: string | undefined;
  let grantedTtlSeconds: number | undefined;
  let registrations = 0;
  let heartbeats = 0;
  let stopped = false;
  // Read through a function: the loop asks after awaits, where the compiler would take a narrowed let as still false.
  const isStopped = () => stopped;
  let running: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  /** The tools changed since the last Register: the next turn registers again instead of a heartbeat. */
  let announcing = false;
  const isAnnouncing = () => announcing;

  /** One registry call with a fresh app token and a time limit. */
  const unary = async <Response>(
    send: (metadata: grpc.Metadata, callOptions: grpc.CallOptions, callback: grpc.requestCallback<Response>) => unknown,
  ): Promise<Response> => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${await accessToken()}`);
    return new Promise((resolve, reject) => {
      send(metadata, { deadline: Date.now() + callTimeoutMs }, (error, response) => {
        if (error) reject(error);
        else if (response === undefined) reject(new Error('the registry answered nothing'));
        else resolve(response);
      });
    });
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      // A stop made while a call was on its way had no wait to end: none is begun (with a heartbeat
      // delay of up to ten minutes, stop() would otherwise wait that long).
      if (isStopped()) {
        resolve();
        return;
      }
      const cancel = timers.after(ms, done);
      function done() {
        cancel();
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const register = async () => {
    const answer = await unary<RegisterResponse__Output>((metadata, callOptions, callback) =>
      client.Register({ serviceName, callbackAddress, ttlSeconds }, metadata, callOptions, callback),
    );
    if (!answer.registrationId || !answer.ttlSeconds) throw new Error('the registry answered Register without a registration id or time to live');
    registrationId = answer.registrationId;
    // A gateway may shorten the lifetime asked for, never lengthen it.
    grantedTtlSeconds = Math.min(answer.ttlSeconds, ttlSeconds);
    registrations += 1;
    options.onRegisteredChange?.(true);
    logger.info({ gatewayAddress, serviceName, callbackAddress, ttlSeconds: grantedTtlSeconds }, 'registered at the gateway');
  };

  const heartbeat = async (id: string) => {
    const answer = await unary<HeartbeatResponse__Output>((metadata, callOptions, callback) =>
      client.Heartbeat({ registrationId: id }, metadata, callOptions, callback),
    );
    if (answer.ttlSeconds) grantedTtlSeconds = Math.min(answer.ttlSeconds, ttlSeconds);
    heartbeats += 1;
  };

  const loop = async () => {
    let failures = 0;
    let lastKind: number | string | undefined;
    while (!isStopped()) {
      try {
        if (registrationId === undefined || announcing) {
          announcing = false;
          await register();
        } else await heartbeat(registrationId);
        failures = 0;
        lastKind = undefined;
        // The tools changed while that call was on its way (its wake-up had no wait to end): register again now.
        if (!isAnnouncing()) await sleep(heartbeatDelay(grantedTtlSeconds ?? ttlSeconds));
      } catch (error) {
        if (isStopped()) break;
        const code = (error as { code?: unknown }).code;
        if (code === grpc.status.NOT_FOUND && registrationId !== undefined) {
          logger.info({ gatewayAddress, serviceName }, 'the gateway no longer knows this registration; registering again');
          registrationId = undefined;
          options.onRegisteredChange?.(false);
          continue;
        }
        failures += 1;
        // While registered, try again before the registration lapses; otherwise back off further.
        const ceiling = registrationId === undefined ? maxMs : Math.min(maxMs, heartbeatDelay(grantedTtlSeconds ?? ttlSeconds));
        const delay = backoffDelay(failures, initialMs, ceiling);
        const reason = reasonOf(error, gatewayAddress, overTls);
        // A gateway that stays down is said once, again when the kind of failure changes (a gRPC
        // status, whose details vary from try to try, or a message), and every tenth try; the rest at debug.
        const kind = typeof code === 'number' ? code : reason;
        const level = failures === 1 || kind !== lastKind || failures % 10 === 0 ? 'warn' : 'debug';
        lastKind = kind;
        logger[level](
          { gatewayAddress, serviceName, attempt: failures, retryInMs: delay, reason },
          registrationId === undefined ? 'cannot register at the gateway; the service keeps serving and tries again' : 'heartbeat failed; trying again',
        );
        await sleep(delay);
      }
    }
  };

  return {
    start() {
      if (running || stopped) return;
      running = loop();
    },
    announce() {
      if (stopped) return;
      announcing = true;
      wake?.();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      wake?.();
      await running;
      const id = registrationId;
      registrationId = undefined;
      if (id !== undefined) {
        options.onRegisteredChange?.(false);
        try {
          await unary<object>((metadata, callOptions, callback) => client.Deregister({ registrationId: id }, metadata, callOptions, callback));
          logger.info({ gatewayAddress, serviceName }, 'deregistered from the gateway');
        } catch (error) {
          logger.warn(
            { gatewayAddress, serviceName, reason: error instanceof Error ? error.message : String(error) },
            'could not deregister; the registration lapses at its time to live',
          );
        }
      }
      client.close();
    },
    get state(): RegistrationState {
      return { registrationId, grantedTtlSeconds, registrations, heartbeats };
    },
  };
}
