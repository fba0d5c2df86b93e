// The live registrations and the catalog they make. Register lists the service's tools before it
// answers; the same app registering the same service name again replaces its old registration (a
// restarted service); a heartbeat renews a registration and hands over the app's newest token; a
// registration not renewed within its granted time to live expires. The registrations are kept in
// a store (registration-store.ts): this process's memory, or PostgreSQL shared by every replica;
// this module keeps the replica's view of them (each with a channel to its service) and publishes a
// new catalog on every change of routing; listeners hear only of changes an MCP client would see.
import { randomUUID } from 'node:crypto';
import type { Clock, Logger, Timers } from '@platform/tool-sdk';
import { systemClock, systemTimers } from '@platform/tool-sdk/internal';
import type { HeartbeatRequest__Output, RegisterRequest__Output, DeregisterRequest__Output } from '@platform/proto';
import type { ServiceEndpoint, ToolCatalog } from '../remote-tools.ts';
import type { ToolServicePool } from '../tool-services/index.ts';
import type { AppCaller } from './app-token-check.ts';
import { resolveCallbackAddress, systemResolveHost, type ResolveHost } from './callback-address.ts';
import type { CallbackNetworks } from './callback-networks.ts';
import type { PublishingPolicy } from './publishing-policy.ts';
import { readRegistrationFields, readRegistrationId, type RegistrationRules } from './registration-fields.ts';
import type { RegistrationStore } from './registration-store.ts';
import { RegistryError } from './registry-errors.ts';
import type { CatalogLimits } from './catalog-limits.ts';
import { createRegistrationView } from './registration-view.ts';
import { listServiceTools, type ServiceListing } from './service-listing.ts';

export interface RegistrationsOptions extends RegistrationRules {
  readonly store: RegistrationStore;
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
  /** Where tool services may be reached (REGISTRY_CALLBACK_NETWORKS); a callback address elsewhere is refused before any connection. */
  readonly callbackNetworks: CallbackNetworks;
  /** Under TLS: callback addresses are dialled by the name registered (their certificates' name), once it resolves within the networks. */
  readonly dialByName?: boolean;
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
  /** Resolves once the registrations already stored are known (and changes elsewhere are heard); rejects when the store cannot be read. */
  ready(): Promise<void>;
  register(
    caller: AppCaller,
    request: RegisterRequest__Output,
    situation: CallSituation,
    note: CallNote,
  ): Promise<{ registrationId: string; ttlSeconds: number }>;
  heartbeat(caller: AppCaller, request: HeartbeatRequest__Output, note: CallNote): Promise<{ ttlSeconds: number }>;
  deregister(caller: AppCaller, request: DeregisterRequest__Output, note: CallNote): Promise<void>;
  catalog(): ToolCatalog;
  onChange(listener: (catalog: ToolCatalog) => void): () => void;
  /** The live registrations, in no particular order. */
  services(): ServiceEndpoint[];
  /** Stops following the store and drops this replica's view without telling listeners (the catalog is left empty); later calls are refused. */
  close(): Promise<void>;
}

/** Time kept back from the caller's deadline for the answer to travel back. */
const answerMarginMs = 100;

export function createRegistrations(options: RegistrationsOptions): Registrations {
  const { store, toolServices, logger, listToolsTimeoutMs, mayPublish, clock = systemClock, timers = systemTimers } = options;
  const { resolveHost = systemResolveHost } = options;
  const rules = { maxRegistrations: options.maxRegistrations, maxRegistrationsPerApp: options.maxRegistrationsPerApp, limits: options.limits };
  const view = createRegistrationView({ store, toolServices, logger, plainNamesApp: options.plainNamesApp, clock, timers });
  let closed = false;
  // Read through a function after awaits, where the compiler would take a narrowed let as still false.
  const isClosed = () => closed;
  const refuseWhenClosed = () => {
    if (isClosed()) throw new RegistryError('REGISTRY_CLOSED');
  };

  const ready = view.start();
  // serve() waits for it and reports a failure; a registry never served must not leave it unhandled.
  ready.catch(() => undefined);

  /** The caller's own live registration; refusals name why. An expired one is swept as it is found. */
  const owned = async (caller: AppCaller, registrationId: string, note: CallNote) => {
    refuseWhenClosed();
    const found = await store.find(registrationId);
    if (!found) {
      if (view.holds(registrationId)) await view.sweep();
      throw new RegistryError('REGISTRATION_NOT_FOUND');
    }
    note.serviceName = found.serviceName;
    if (found.appClientId !== caller.clientId) throw new RegistryError('REGISTRATION_OF_ANOTHER_APP');
    return found;
  };

  return {
    ready: () => ready,

    async register(caller, request, situation, note) {
      const fields = readRegistrationFields(request, options);
      const { serviceName, grantedTtlSeconds } = fields;
      note.serviceName = serviceName;
      refuseWhenClosed();
      mayPublish(caller);
      await store.checkRoom({ appClientId: caller.clientId, serviceName, bytes: 0 }, rules);
      // Two apps may name one address: no app can lock another out of its own, and a tool service
      // refuses tokens delegated to any app but its own, so neither reaches the other's tools.
      const callbackAddress = await resolveCallbackAddress(fields.callbackAddress, {
        resolveHost,
        grpcPlaintextOffLoopback: options.grpcPlaintextOffLoopback,
        networks: options.callbackNetworks,
        dialByName: options.dialByName ?? false,
      });
      refuseWhenClosed();

      // Held from the listing until the view holds the registration, so a restart at the same address keeps the channel.
      const lease = toolServices.lease(callbackAddress);
      try {
        const deadlineMs = Math.max(1, Math.min(listToolsTimeoutMs, situation.remainingMs - answerMarginMs));
        const listing: ServiceListing = await listServiceTools(toolServices, callbackAddress, { deadlineMs, limits: options.limits });
        refuseWhenClosed();
        if (situation.cancelled()) throw new RegistryError('CALLER_GONE');
        const registrationId = randomUUID();
        const { replaced } = await store.add(
          {
            registrationId,
            serviceName,
            appClientId: caller.clientId,
            appKey: caller.appKey,
            callbackAddress,
            grantedTtlSeconds,
            bytes: listing.bytes,
            token: caller.token,
            tools: listing.announced,
          },
          rules,
        );
        if (replaced) note.replaced = replaced;
        note.registrationId = registrationId;
        // The catalog of this replica lists the tools before the service hears it registered.
        await view.refresh();
        return { registrationId, ttlSeconds: grantedTtlSeconds };
      } finally {
        lease.release();
      }
    },

    async heartbeat(caller, request, note) {
      const registrationId = readRegistrationId(request.registrationId);
      note.registrationId = registrationId;
      const found = await owned(caller, registrationId, note);
      try {
        mayPublish(caller);
      } catch (error) {
        // The platform (or the operator) withdrew the app's right to publish: its tools go now, not at expiry.
        await store.remove(registrationId);
        await view.refresh();
        throw error;
      }
      if (!(await store.renew(registrationId, caller.token))) {
        await view.sweep();
        throw new RegistryError('REGISTRATION_NOT_FOUND');
      }
      view.renewed(registrationId, caller.token);
      return { ttlSeconds: found.grantedTtlSeconds };
    },

    async deregister(caller, request, note) {
      const registrationId = readRegistrationId(request.registrationId);
      note.registrationId = registrationId;
      await owned(caller, registrationId, note);
      await store.remove(registrationId);
      await view.refresh();
    },

    catalog: () => view.catalog(),
    onChange: (listener) => view.onChange(listener),
    services: () => view.services(),

    async close() {
      closed = true;
      await view.close();
      await store.close();
    },
  };
}
