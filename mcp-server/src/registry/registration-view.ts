// One replica's view of the stored registrations: each live one with its checked tools and a lease
// on its service's channel, and the catalog they make. It is read again from the store after every
// change made here, whenever the store says another replica changed something, and at the soonest
// expiry, when it also sweeps the expired registrations out of the store.
import type { Clock, Logger, Timers } from '@platform/tool-sdk';
import type { Tool__Output } from '@platform/proto';
import type { ServiceEndpoint, ToolCatalog } from '../remote-tools.ts';
import type { ToolServiceLease, ToolServicePool } from '../tool-services/index.ts';
import type { LiveRegistration, RegistrationStore } from './registration-store.ts';
import { serviceTools, type ServiceTool } from './service-tools.ts';
import { buildCatalog, listsTheSame, routesTheSame, type CatalogSnapshot } from './tool-catalog.ts';

export interface RegistrationViewOptions {
  readonly store: RegistrationStore;
  readonly toolServices: ToolServicePool;
  readonly logger: Logger;
  readonly plainNamesApp: string | undefined;
  readonly clock: Clock;
  readonly timers: Timers;
}

interface Viewed {
  readonly endpoint: ServiceEndpoint;
  readonly tools: readonly ServiceTool[];
  readonly lease: ToolServiceLease;
  readonly grantedTtlSeconds: number;
  token: string;
  /** By this process's clock: when it was read plus the time the store gave it then. */
  expiresAt: number;
}

/** Node fires a timer set past 2^31 - 1 ms at once; expiries further out are looked at again by then. */
const maxTimerMs = 10 * 60_000;
/** How long a sweep that failed (the store unreachable) waits before it tries again. */
const sweepRetryMs = 5_000;

export function createRegistrationView(options: RegistrationViewOptions) {
  const { store, toolServices, logger, plainNamesApp, clock, timers } = options;
  let viewed = new Map<string, Viewed>();
  const listeners = new Set<(catalog: ToolCatalog) => void>();
  let current: CatalogSnapshot = buildCatalog(0, [], plainNamesApp);
  let cancelSweep: (() => void) | undefined;
  let stopWatching: (() => Promise<void>) | undefined;
  let closed = false;
  const isClosed = () => closed;

  const publish = () => {
    const next = buildCatalog(
      current.version + 1,
      [...viewed.values()].map(({ endpoint, tools }) => ({ service: endpoint, tools })),
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

  const entering = (row: LiveRegistration, tools: readonly ServiceTool[], readAt: number): Viewed => {
    const entry: Viewed = {
      endpoint: Object.freeze({
        registrationId: row.registrationId,
        serviceName: row.serviceName,
        appClientId: row.appClientId,
        appKey: row.appKey,
        callbackAddress: row.callbackAddress,
        since: row.since,
        actorToken: () => entry.token,
      }),
      tools,
      lease: toolServices.lease(row.callbackAddress),
      grantedTtlSeconds: row.grantedTtlSeconds,
      token: row.token,
      expiresAt: readAt + row.expiresInMs,
    };
    return entry;
  };

  /** Reads the store whole; registrations new to this replica have their tools read and checked. */
  const load = async () => {
    const rows = await store.live();
    const readAt = clock();
    const unknown = rows.filter((row) => !viewed.has(row.registrationId)).map((row) => row.registrationId);
    const listed = unknown.length > 0 ? await store.toolsOf(unknown) : new Map<string, readonly Tool__Output[]>();
    if (isClosed()) return;
    const next = new Map<string, Viewed>();
    for (const row of rows) {
      const known = viewed.get(row.registrationId);
      if (known) {
        known.token = row.token;
        known.expiresAt = readAt + row.expiresInMs;
        next.set(row.registrationId, known);
        continue;
      }
      const announced = listed.get(row.registrationId);
      if (!announced) continue; // removed between the two reads: the next load will not list it
      try {
        next.set(row.registrationId, entering(row, serviceTools(announced), readAt));
      } catch (error) {
        // Checked when it registered; a replica of another release may judge it otherwise.
        logger.error({ err: error, registrationId: row.registrationId, serviceName: row.serviceName }, 'a stored registration cannot be exposed');
      }
    }
    // The old registrations go after the new ones hold their channels, so a restart at the same address keeps it.
    for (const [id, old] of viewed) if (!next.has(id)) old.lease.release();
    viewed = next;
    publish();
    armTimer();
  };

  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  /** A load that starts after this call (one under way is followed by one more, shared by every caller meanwhile). */
  const refresh = (): Promise<void> => {
    if (isClosed()) return Promise.resolve();
    if (!running) {
      running = load().finally(() => {
        running = undefined;
      });
      return running;
    }
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return refresh();
      });
    return queued;
  };

  /** Drops the expired registrations from the store (any replica may; one does each) and reads it again. */
  const sweep = async () => {
    const expired = await store.expire();
    for (const { registrationId, serviceName, appClientId, callbackAddress, grantedTtlSeconds } of expired) {
      logger.info({ registrationId, serviceName, appClientId, callbackAddress, ttlSeconds: grantedTtlSeconds }, 'registration expired');
    }
    await refresh();
  };

  /** One timer, for the soonest expiry this replica knows of; a load arms it again. */
  function armTimer() {
    cancelSweep?.();
    cancelSweep = undefined;
    if (closed || viewed.size === 0) return;
    let soonest = Number.POSITIVE_INFINITY;
    for (const entry of viewed.values()) soonest = Math.min(soonest, entry.expiresAt);
    cancelSweep = timers.after(Math.min(maxTimerMs, Math.max(0, soonest - clock())), () => {
      sweep().catch((error: unknown) => {
        logger.warn({ err: error }, 'the sweep of expired registrations failed; trying again');
        if (!isClosed()) cancelSweep = timers.after(sweepRetryMs, armTimer);
      });
    });
  }

  return {
    /** Follows the store's changes, then reads it. */
    async start() {
      stopWatching = await store.watch(() => {
        refresh().catch((error: unknown) => {
          logger.warn({ err: error }, 'the registrations could not be read again; the next change or reconciliation will');
        });
      });
      await refresh();
    },
    refresh,
    sweep,
    holds: (registrationId: string) => viewed.has(registrationId),
    /** A heartbeat renewed it here: its new token and expiry, without reading the store again. */
    renewed(registrationId: string, token: string) {
      const entry = viewed.get(registrationId);
      if (!entry) return;
      entry.token = token;
      entry.expiresAt = clock() + entry.grantedTtlSeconds * 1000;
    },
    catalog: (): ToolCatalog => current,
    onChange(listener: (catalog: ToolCatalog) => void) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    services: () => [...viewed.values()].map(({ endpoint }) => endpoint),
    async close() {
      closed = true;
      cancelSweep?.();
      await stopWatching?.();
      for (const entry of viewed.values()) entry.lease.release();
      viewed.clear();
      listeners.clear();
      current = buildCatalog(current.version + 1, [], plainNamesApp);
    },
  };
}
