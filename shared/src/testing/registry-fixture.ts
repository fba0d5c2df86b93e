// A real ToolRegistry server on a loopback port, for tests of registration: it grants a time to
// live, expires registrations whose heartbeats stop, can forget everything (a gateway restart),
// and records every call with the app token it carried.
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { loadRegistryProto, type ToolRegistryHandlers } from '@platform/proto';
import { systemClock, type Clock } from '../time/clock.ts';

/** A registration the fixture holds, as a tool service sent it. */
export interface FixtureRegistration {
  /** The id the fixture gave the registration. */
  readonly registrationId: string;
  /** The service name it registered under. */
  readonly serviceName: string;
  /** Where it said it is reached, host:port. */
  readonly callbackAddress: string;
  /** The time to live the fixture granted. */
  readonly grantedTtlSeconds: number;
  /** When it expires (the fixture's clock, in milliseconds), moved by each heartbeat. */
  expiresAt: number;
  /** Heartbeats received for it. */
  heartbeats: number;
}

/** One call the fixture received: its method, request and bearer. */
export interface RegistryCall {
  /** The ToolRegistry method called. */
  readonly method: 'Register' | 'Heartbeat' | 'Deregister';
  /** The `authorization` metadata it carried, or undefined. */
  readonly authorization: string | undefined;
  /** When it arrived (the fixture's clock, in milliseconds). */
  readonly at: number;
  /** What the fixture answered. */
  readonly outcome: 'ok' | 'NOT_FOUND' | 'UNAVAILABLE';
}

/** A stand-in for the gateway's ToolRegistry on loopback gRPC. */
export interface RegistryFixture {
  /** Where the fixture listens, host:port: the gateway address to give a tool service. */
  readonly address: string;
  /** Every call so far, oldest first. */
  readonly calls: readonly RegistryCall[];
  /** Registrations alive now (expired ones are dropped as they are looked at). */
  alive(): FixtureRegistration[];
  /** Forgets every registration, as a restarted gateway would. */
  forgetAll(): void;
  /** While true, every call answers UNAVAILABLE (a gateway that cannot check tokens). */
  refuseAll(refuse: boolean): void;
  /** Stops the server. */
  close(): Promise<void>;
}

/** How the fixture answers: the lifetime it grants and the failures it stages. */
export interface RegistryFixtureOptions {
  /** Caps what a service asks for, as a gateway may. */
  readonly grantTtlSeconds?: number;
  /** host:port to bind; default a free loopback port. */
  readonly address?: string;
  /** Judges expiry; a test passes the manual clock its registration's timers run on. */
  readonly clock?: Clock;
}

/** Starts a `RegistryFixture` on a free loopback port. */
export async function startRegistryFixture(options: RegistryFixtureOptions = {}): Promise<RegistryFixture> {
  const { clock = systemClock } = options;
  const registrations = new Map<string, FixtureRegistration>();
  const calls: RegistryCall[] = [];
  let refusing = false;
  const alive = () => {
    const now = clock();
    for (const [id, registration] of registrations) if (registration.expiresAt <= now) registrations.delete(id);
    return [...registrations.values()];
  };
  const record = (method: RegistryCall['method'], metadata: grpc.Metadata, outcome: RegistryCall['outcome']) => {
    const value = metadata.get('authorization')[0];
    calls.push({ method, authorization: value === undefined ? undefined : String(value), at: clock(), outcome });
  };
  const unavailable = { code: grpc.status.UNAVAILABLE, details: 'the registry is refusing calls' };
  const notFound = { code: grpc.status.NOT_FOUND, details: 'no such registration; register again' };

  /** Records the call and answers with `error` (refusals) or nothing more to do. */
  const refuse = (
    method: RegistryCall['method'],
    metadata: grpc.Metadata,
    outcome: 'NOT_FOUND' | 'UNAVAILABLE',
    callback: (error: grpc.ServiceError | Partial<grpc.StatusObject>) => void,
  ) => {
    record(method, metadata, outcome);
    callback(outcome === 'NOT_FOUND' ? notFound : unavailable);
  };

  const handlers: ToolRegistryHandlers = {
    Register: (call, callback) => {
      if (refusing) {
        refuse('Register', call.metadata, 'UNAVAILABLE', callback);
        return;
      }
      const grantedTtlSeconds = Math.min(call.request.ttlSeconds, options.grantTtlSeconds ?? call.request.ttlSeconds);
      const registration = {
        registrationId: randomUUID(),
        serviceName: call.request.serviceName,
        callbackAddress: call.request.callbackAddress,
        grantedTtlSeconds,
        expiresAt: clock() + grantedTtlSeconds * 1000,
        heartbeats: 0,
      };
      registrations.set(registration.registrationId, registration);
      record('Register', call.metadata, 'ok');
      callback(null, { registrationId: registration.registrationId, ttlSeconds: grantedTtlSeconds });
    },
    Heartbeat: (call, callback) => {
      if (refusing) {
        refuse('Heartbeat', call.metadata, 'UNAVAILABLE', callback);
        return;
      }
      const registration = alive().find((r) => r.registrationId === call.request.registrationId);
      if (!registration) {
        refuse('Heartbeat', call.metadata, 'NOT_FOUND', callback);
        return;
      }
      registration.expiresAt = clock() + registration.grantedTtlSeconds * 1000;
      registration.heartbeats += 1;
      record('Heartbeat', call.metadata, 'ok');
      callback(null, { ttlSeconds: registration.grantedTtlSeconds });
    },
    Deregister: (call, callback) => {
      const known = registrations.delete(call.request.registrationId);
      record('Deregister', call.metadata, known ? 'ok' : 'NOT_FOUND');
      if (known) callback(null, {});
      else callback(notFound);
    },
  };

  const server = new grpc.Server();
  server.addService(loadRegistryProto().ToolRegistry.service, handlers);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(options.address ?? '127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => {
      if (error) reject(error);
      else resolve(bound);
    });
  });
  return {
    address: `127.0.0.1:${port}`,
    calls,
    alive,
    forgetAll: () => {
      registrations.clear();
    },
    refuseAll: (refuse) => {
      refusing = refuse;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => {
          resolve();
        });
      }),
  };
}
