// The live registrations and the catalog they make. Register lists the service's tools before it
// answers; the same app registering the same service name again replaces its old registration (a
// restarted service); a heartbeat renews a registration and hands over the app's newest token; a
// registration not renewed within its granted time to live expires. A new catalog is published on
// every change of routing; listeners hear only of changes an MCP client would see.
import { randomUUID } from 'node:crypto';
import { systemClock, systemTimers, type Clock, type Logger, type Timers } from '@platform/shared';
import type { HeartbeatRequest__Output, RegisterRequest__Output, DeregisterRequest__Output } from '@platform/proto';
import type { ServiceEndpoint, ToolCatalog } from '../remote-tools.ts';
import type { ToolServiceLease, ToolServicePool } from '../tool-services/index.ts';
import type { AppCaller } from './app-token-check.ts';
import { resolveCallbackAddress, systemResolveHost, type ResolveHost } from './callback-address.ts';
import type { PublishingPolicy } from './publishing-policy.ts';
import { readRegistrationFields, readRegistrationId, type RegistrationRules } from './registration-fields.ts';
import { RegistryError } from './registry-errors.ts';
import type { CatalogLimits } from './catalog-limits.ts';
import { roomProblem, type Occupant } from './registration-room.ts';
import { listServiceTools, type ServiceListing } from './service-listing.ts';
import type { ServiceTool } from './service-tools.ts';
import { buildCatalog, listsTheSame, routesTheSame, type CatalogSnapshot } from './tool-catalog.ts';

export interface RegistrationsOptions extends RegistrationRules {
  readonly toolServices: ToolServicePool;
  readonly logger: Logger;
  readonly listToolsTimeoutMs: number;
  readonly maxRegistrations: number;
  readonly maxRegistrationsPerApp: number;
  /** Tools per service, and bytes of tools per tool, registration, app and in all. */
  readonly limits: CatalogLimits;
  /** Whether an app may register (and keep) tool services here. */
  readonly mayPublish: PublishingPolicy;
  /** The app key whose tools keep their own names (REGISTRY_PLAIN_NAMES_APP); every other app's are prefixed with its key. */
  readonly plainNamesApp?: string | undefined;
  /** What a callback address's host resolves to; node:dns by default. */
  readonly resolveHost?: ResolveHost;
  readonly clock?: Clock;
  /** Arms the sweep at the soonest expiry; with `clock`, what a test moves instead of waiting. */
  readonly timers?: Timers;
}

/** What a call's log line says besides its outcome; filled in as the call learns it. */
export interface CallNote {
  serviceName?: string;
  appClientId?: string;
  registrationId?: string;
  /** The registration a Register replaced. */
  replaced?: string;
}

/** The incoming call, as far as Register needs it. */
export interface CallSituation {
  /** Milliseconds left before the caller's deadline; Infinity when it set none. */
  readonly remainingMs: number;
  readonly cancelled: () => boolean;
}

export interface Registrations {
  register(
    caller: AppCaller,
    request: RegisterRequest__Output,
    situation: CallSituation,
    note: CallNote,
  ): Promise<{ registrationId: string; ttlSeconds: number }>;
  heartbeat(caller: AppCaller, request: HeartbeatRequest__Output, note: CallNote): { ttlSeconds: number };
  deregister(caller: AppCaller, request: DeregisterRequest__Output, note: CallNote): void;
  catalog(): ToolCatalog;
  onChange(listener: (catalog: ToolCatalog) => void): () => void;
  /** The live registrations, in no particular order. */
  services(): ServiceEndpoint[];
  /** Drops every registration without telling listeners (the catalog is left empty); later calls are refused. */
  close(): void;
}

interface Registration {
  readonly endpoint: ServiceEndpoint;
  readonly grantedTtlSeconds: number;
  readonly tools: readonly ServiceTool[];
  /** Its app and what its tools take of the catalog's bytes. */
  readonly occupant: Occupant;
  readonly lease: ToolServiceLease;
  token: string;
  expiresAt: number;
}

/** Node fires a timer set past 2^31 - 1 ms at once; expiries further out are looked at again by then. */
const maxTimerMs = 10 * 60_000;
/** Time kept back from the caller's deadline for the answer to travel back. */
const answerMarginMs = 100;

const serviceKey = (appClientId: string, serviceName: string) => `${appClientId}\n${serviceName}`;

export function createRegistrations(options: RegistrationsOptions): Registrations {
  const {
    toolServices,
    logger,
    listToolsTimeoutMs,
    maxRegistrations,
    maxRegistrationsPerApp,
    mayPublish,
    clock = systemClock,
    timers = systemTimers,
  } = options;
  const byId = new Map<string, Registration>();
  const byService = new Map<string, Registration>();
  const listeners = new Set<(catalog: ToolCatalog) => void>();
  const { plainNamesApp, resolveHost = systemResolveHost } = options;
  let current: CatalogSnapshot = buildCatalog(0, [], plainNamesApp);
  let cancelSweep: (() => void) | undefined;
  let closed = false;
  // Read through a function after awaits, where the compiler would take a narrowed let as still false.
  const isClosed = () => closed;

  const publish = () => {
    const next = buildCatalog(
      current.version + 1,
      [...byId.values()].map(({ endpoint, tools }) => ({ service: endpoint, tools })),
      plainNamesApp,
    );
    const sameList = listsTheSame(current, next);
    if (sameList && routesTheSame(current, next)) return;
    current = next;
    if (sameList) return;
    for (const listener of listeners) {
      try {
        listener(next);
      } catch (error) {
        logger.error({ err: error }, 'a catalog listener failed');
      }
    }
  };

  const remove = (registration: Registration) => {
    const { registrationId, appClientId, serviceName } = registration.endpoint;
    byId.delete(registrationId);
    const key = serviceKey(appClientId, serviceName);
    if (byService.get(key) === registration) byService.delete(key);
    registration.lease.release();
  };

  /** Removes every registration past its time; true when one was. */
  const expire = (): boolean => {
    const now = clock();
    let expired = false;
    for (const registration of byId.values()) {
      if (registration.expiresAt > now) continue;
      remove(registration);
      expired = true;
      const { registrationId, serviceName, appClientId, callbackAddress } = registration.endpoint;
      logger.info({ registrationId, serviceName, appClientId, callbackAddress, ttlSeconds: registration.grantedTtlSeconds }, 'registration expired');
    }
    return expired;
  };

  const sweep = () => {
    if (expire()) publish();
    armTimer();
  };

  /** One timer, for the soonest expiry; a heartbeat only moves expiries later, so it never needs to re-arm it. */
  function armTimer() {
    cancelSweep?.();
    cancelSweep = undefined;
    if (closed || byId.size === 0) return;
    let soonest = Number.POSITIVE_INFINITY;
    for (const registration of byId.values()) soonest = Math.min(soonest, registration.expiresAt);
    cancelSweep = timers.after(Math.min(maxTimerMs, Math.max(0, soonest - clock())), sweep);
  }

  /** The live registration with this id; an expired one is removed as it is found. */
  const live = (registrationId: string): Registration | undefined => {
    const registration = byId.get(registrationId);
    if (registration && registration.expiresAt <= clock()) sweep();
    return byId.get(registrationId);
  };

  /** The caller's own live registration, renewed or not; refusals name why. */
  const owned = (caller: AppCaller, registrationId: string, note: CallNote): Registration => {
    if (closed) throw new RegistryError('REGISTRY_CLOSED');
    const registration = live(registrationId);
    if (!registration) throw new RegistryError('REGISTRATION_NOT_FOUND');
    note.serviceName = registration.endpoint.serviceName;
    if (registration.endpoint.appClientId !== caller.clientId) throw new RegistryError('REGISTRATION_OF_ANOTHER_APP');
    return registration;
  };

  /** Refuses a registration past a limit of count or bytes, per app or in all; expired ones go first. */
  const roomFor = (key: string, appClientId: string, bytes = 0) => {
    const entrant = { appClientId, bytes, replacing: byService.get(key)?.occupant };
    const rules = { maxRegistrations, maxRegistrationsPerApp, limits: options.limits };
    const occupants = () => [...byId.values()].map((registration) => registration.occupant);
    if (roomProblem(occupants(), entrant, rules) && expire()) publish();
    const problem = roomProblem(occupants(), entrant, rules);
    if (problem) throw problem;
  };

  return {
    async register(caller, request, situation, note) {
      const fields = readRegistrationFields(request, options);
      const { serviceName, grantedTtlSeconds } = fields;
      note.serviceName = serviceName;
      if (closed) throw new RegistryError('REGISTRY_CLOSED');
      mayPublish(caller);
      const key = serviceKey(caller.clientId, serviceName);
      roomFor(key, caller.clientId);
      // Two apps may name one address: no app can lock another out of its own, and a tool service
      // refuses tokens delegated to any app but its own, so neither reaches the other's tools.
      const callbackAddress = await resolveCallbackAddress(fields.callbackAddress, { resolveHost, grpcPlaintextOffLoopback: options.grpcPlaintextOffLoopback });
      if (isClosed()) throw new RegistryError('REGISTRY_CLOSED');

      const lease = toolServices.lease(callbackAddress);
      let listing: ServiceListing;
      try {
        const deadlineMs = Math.max(1, Math.min(listToolsTimeoutMs, situation.remainingMs - answerMarginMs));
        listing = await listServiceTools(toolServices, callbackAddress, { deadlineMs, limits: options.limits });
        if (isClosed()) throw new RegistryError('REGISTRY_CLOSED');
        if (situation.cancelled()) throw new RegistryError('CALLER_GONE');
        roomFor(key, caller.clientId, listing.bytes);
      } catch (error) {
        lease.release();
        throw error;
      }

      const registrationId = randomUUID();
      const registration: Registration = {
        endpoint: Object.freeze({
          registrationId,
          serviceName,
          appClientId: caller.clientId,
          appKey: caller.appKey,
          callbackAddress,
          actorToken: () => registration.token,
        }),
        grantedTtlSeconds,
        tools: listing.tools,
        occupant: Object.freeze({ appClientId: caller.clientId, bytes: listing.bytes }),
        lease,
        token: caller.token,
        expiresAt: clock() + grantedTtlSeconds * 1000,
      };
      // The old registration goes after the new one holds the channel, so a restart at the same address keeps it.
      const replaced = byService.get(key);
      byId.set(registrationId, registration);
      byService.set(key, registration);
      if (replaced) {
        remove(replaced);
        note.replaced = replaced.endpoint.registrationId;
      }
      note.registrationId = registrationId;
      publish();
      armTimer();
      return { registrationId, ttlSeconds: grantedTtlSeconds };
    },

    heartbeat(caller, request, note) {
      const registrationId = readRegistrationId(request.registrationId);
      note.registrationId = registrationId;
      const registration = owned(caller, registrationId, note);
      try {
        mayPublish(caller);
      } catch (error) {
        // The platform (or the operator) withdrew the app's right to publish: its tools go now, not at expiry.
        remove(registration);
        publish();
        armTimer();
        throw error;
      }
      registration.token = caller.token;
      registration.expiresAt = clock() + registration.grantedTtlSeconds * 1000;
      return { ttlSeconds: registration.grantedTtlSeconds };
    },

    deregister(caller, request, note) {
      const registrationId = readRegistrationId(request.registrationId);
      note.registrationId = registrationId;
      remove(owned(caller, registrationId, note));
      publish();
      armTimer();
    },

    catalog: () => current,

    onChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },

    services: () => [...byId.values()].map(({ endpoint }) => endpoint),

    close() {
      closed = true;
      cancelSweep?.();
      for (const registration of [...byId.values()]) remove(registration);
      listeners.clear();
      current = buildCatalog(current.version + 1, [], plainNamesApp);
    },
  };
}
