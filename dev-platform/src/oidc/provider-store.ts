// What the authorization server keeps between requests (oidc-provider's adapter): interactions,
// sessions, grants, authorization codes and registration access tokens in memory, bounded and
// expiring; clients registered through dynamic client registration in the registered-clients store
// (memory, and a file when one is named), and clients that are no registration of this platform
// (a client ID metadata document) answered by `resolveClient`. Access tokens are JWTs and never stored.
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import { LRUCache } from 'lru-cache';
import type { Clock } from '@platform/tool-sdk';
import { systemClock } from '@platform/tool-sdk/internal';
import { createRegisteredClients } from './clients/registered-clients.ts';

export { ClientsFileError, ClientStoreFullError } from './clients/registered-clients.ts';

export interface ProviderStoreOptions {
  /** Where registered clients are kept across restarts; none keeps them in memory only. */
  readonly clientsFile?: string | undefined;
  /** Most registered clients kept. Default 1000. */
  readonly maxClients?: number;
  /**
   * How long a registered client stays in use, and may not be dropped from a full store, after it
   * signed someone in or got a token. Default 7 days.
   */
  readonly evictUnusedAfterMs?: number;
  /** Answers for a client id no registration holds (a client ID metadata document); undefined when it knows none. */
  readonly resolveClient?: (id: string) => Promise<AdapterPayload | undefined>;
  /** Most other entries kept. Default 10 000. */
  readonly maxEntries?: number;
  /** What entries' lifetimes are judged by; default the system's (lifetimes on its monotonic timer). */
  readonly clock?: Clock;
}

/** The adapter factory, whether one more client can register, and the record of a client's use. */
export interface ProviderStore extends AdapterFactory {
  /** True when one more client fits, after dropping the registered client unused for longest if the store is full and one is not in use. */
  roomForClient(): boolean;
  /** Records that a registered client signed someone in or got a token: in use until `heldUntil` at least. */
  markClientUsed(clientId: string, heldUntil: number): void;
}

/** Models whose entries belong to a grant, and go when the grant is revoked. */
const grantable = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

export function createProviderStore(options: ProviderStoreOptions = {}): ProviderStore {
  const { clientsFile, maxClients = 1000, maxEntries = 10_000, evictUnusedAfterMs = 7 * 24 * 3600 * 1000 } = options;
  const clock = options.clock ?? systemClock;
  const registered = createRegisteredClients({ file: clientsFile, maxClients, inUseForMs: evictUnusedAfterMs, clock });
  const clientAdapter = registered.adapter(options.resolveClient);
  const sessionByUid = new Map<string, string>();
  const byUserCode = new Map<string, string>();
  const grantMembers = new Map<string, Set<string>>();
  /** Drops what points at the entry `key` (model:id) once it is gone, however it went. */
  const unindex = (key: string, payload: AdapterPayload) => {
    const id = key.slice(key.indexOf(':') + 1);
    if (payload.uid !== undefined && sessionByUid.get(payload.uid) === id) sessionByUid.delete(payload.uid);
    if (payload.userCode !== undefined && byUserCode.get(payload.userCode) === id) byUserCode.delete(payload.userCode);
    if (payload.grantId === undefined) return;
    const members = grantMembers.get(payload.grantId);
    members?.delete(key);
    if (members?.size === 0) grantMembers.delete(payload.grantId);
  };
  // Expired entries are purged on their own, so that the indexes above stay as small as the entries.
  const entries = new LRUCache<string, AdapterPayload>({
    max: maxEntries,
    ttlAutopurge: true,
    ...(options.clock && { perf: { now: options.clock } }),
    dispose: (payload, key) => {
      unindex(key, payload);
    },
  });

  const adapterFor = (model: string): Adapter => {
    const key = (id: string) => `${model}:${id}`;
    const find = (id: string | undefined) => Promise.resolve(id === undefined ? undefined : entries.get(key(id)));
    return {
      upsert(id, payload, expiresIn) {
        // Deleted first, so that the old entry's indexes go before the new one's are made.
        entries.delete(key(id));
        entries.set(key(id), payload, typeof expiresIn === 'number' ? { ttl: expiresIn * 1000 } : {});
        if (model === 'Session' && payload.uid !== undefined) sessionByUid.set(payload.uid, id);
        if (payload.userCode !== undefined) byUserCode.set(payload.userCode, id);
        if (grantable.has(model) && payload.grantId !== undefined) {
          let members = grantMembers.get(payload.grantId);
          if (!members) grantMembers.set(payload.grantId, (members = new Set()));
          members.add(key(id));
        }
        return Promise.resolve();
      },
      find,
      findByUid: (uid) => find(sessionByUid.get(uid)),
      findByUserCode: (userCode) => find(byUserCode.get(userCode)),
      consume(id) {
        const payload = entries.get(key(id));
        if (payload) payload.consumed = Math.floor(clock() / 1000);
        return Promise.resolve();
      },
      destroy(id) {
        entries.delete(key(id));
        return Promise.resolve();
      },
      revokeByGrantId(grantId) {
        for (const member of [...(grantMembers.get(grantId) ?? [])]) entries.delete(member);
        grantMembers.delete(grantId);
        return Promise.resolve();
      },
    };
  };

  const factory = (model: string) => (model === 'Client' ? clientAdapter : adapterFor(model));
  return Object.assign(factory, { roomForClient: registered.roomForClient, markClientUsed: registered.markUsed });
}
