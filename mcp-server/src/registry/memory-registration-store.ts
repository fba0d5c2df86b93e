// The registrations in this process's memory: the store of a gateway that runs alone (no
// DATABASE_URL). Expiry is judged by the injected clock, so tests move time instead of waiting.
import type { Clock } from '@platform/tool-sdk';
import { systemClock } from '@platform/tool-sdk/internal';
import type { Tool__Output } from '@platform/proto';
import type { LiveRegistration, RegistrationStore, StoredRegistration } from './registration-store.ts';
import { roomProblem, type Occupant } from './registration-room.ts';

interface Row {
  readonly stored: StoredRegistration;
  readonly tools: readonly Tool__Output[];
  /** Its app and bytes, compared by identity as the one a new registration replaces. */
  readonly occupant: Occupant;
  token: string;
  expiresAt: number;
}

const serviceKey = (appClientId: string, serviceName: string) => `${appClientId}\n${serviceName}`;

export function createMemoryRegistrationStore(options: { readonly clock?: Clock } = {}): RegistrationStore {
  const { clock = systemClock } = options;
  const byId = new Map<string, Row>();
  const byService = new Map<string, Row>();

  const liveRow = (row: Row | undefined) => (row && row.expiresAt > clock() ? row : undefined);
  const asLive = (row: Row): LiveRegistration => ({ ...row.stored, token: row.token, expiresInMs: row.expiresAt - clock() });
  const drop = (row: Row) => {
    byId.delete(row.stored.registrationId);
    const key = serviceKey(row.stored.appClientId, row.stored.serviceName);
    if (byService.get(key) === row) byService.delete(key);
  };
  const occupants = () => [...byId.values()].map((row) => row.occupant);
  /** The room problem, judged after the expired registrations made way. */
  const problemFor = (appClientId: string, serviceName: string, bytes: number, rules: Parameters<typeof roomProblem>[2]) => {
    const entrant = { appClientId, bytes, replacing: liveRow(byService.get(serviceKey(appClientId, serviceName)))?.occupant };
    if (!roomProblem(occupants(), entrant, rules)) return undefined;
    for (const row of [...byId.values()]) if (!liveRow(row)) drop(row);
    return roomProblem(occupants(), entrant, rules);
  };

  return {
    live: () => Promise.resolve([...byId.values()].filter((row) => liveRow(row)).map(asLive)),

    toolsOf: (registrationIds) => Promise.resolve(new Map(registrationIds.flatMap((id) => (byId.has(id) ? [[id, byId.get(id)?.tools ?? []] as const] : [])))),

    find: (registrationId) => {
      const row = liveRow(byId.get(registrationId));
      return Promise.resolve(row && asLive(row));
    },

    checkRoom(entrant, rules) {
      const problem = problemFor(entrant.appClientId, entrant.serviceName, entrant.bytes, rules);
      return problem ? Promise.reject(problem) : Promise.resolve();
    },

    add(registration, rules) {
      const { tools, ...fields } = registration;
      const problem = problemFor(fields.appClientId, fields.serviceName, fields.bytes, rules);
      if (problem) return Promise.reject(problem);
      const key = serviceKey(fields.appClientId, fields.serviceName);
      const replaced = byService.get(key);
      // A restart (the same service replacing its live registration) keeps its place among its app's services.
      const stored: StoredRegistration = { ...fields, since: liveRow(replaced)?.stored.since ?? clock() };
      const row: Row = {
        stored,
        tools,
        occupant: Object.freeze({ appClientId: stored.appClientId, bytes: stored.bytes }),
        token: stored.token,
        expiresAt: clock() + stored.grantedTtlSeconds * 1000,
      };
      if (replaced) drop(replaced);
      byId.set(stored.registrationId, row);
      byService.set(key, row);
      return Promise.resolve({ replaced: replaced?.stored.registrationId });
    },

    renew(registrationId, token) {
      const row = liveRow(byId.get(registrationId));
      if (!row) return Promise.resolve(false);
      row.token = token;
      row.expiresAt = clock() + row.stored.grantedTtlSeconds * 1000;
      return Promise.resolve(true);
    },

    remove(registrationId) {
      const row = byId.get(registrationId);
      if (row) drop(row);
      return Promise.resolve(row !== undefined);
    },

    expire() {
      const expired = [...byId.values()].filter((row) => !liveRow(row));
      for (const row of expired) drop(row);
      return Promise.resolve(expired.map((row) => row.stored));
    },

    // Nothing else writes here.
    watch: () => Promise.resolve(() => Promise.resolve()),

    close() {
      byId.clear();
      byService.clear();
      return Promise.resolve();
    },
  };
}
