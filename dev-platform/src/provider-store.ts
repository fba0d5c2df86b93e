// What the authorization server keeps between requests (oidc-provider's adapter): interactions,
// sessions, grants, authorization codes and registration access tokens in memory, bounded and
// expiring; clients registered through dynamic client registration in memory too, or, when a file
// is named, also in that file, so that an MCP client that registered once (mcp-remote, an agent
// desktop) can still sign in after the platform restarts. Access tokens are JWTs and never stored.
// The registered clients are bounded: a full store makes room only by dropping a client unused for
// long, never one in use, and otherwise takes no new registration.
import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { LRUCache } from 'lru-cache';
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import { systemClock, type Clock } from '@platform/tool-sdk';

export interface ProviderStoreOptions {
  /** Where registered clients are kept across restarts; none keeps them in memory only. */
  readonly clientsFile?: string | undefined;
  /** Most registered clients kept. Default 1000. */
  readonly maxClients?: number;
  /** A full store drops the least recently used client unused this long to make room, and no other. Default 7 days. */
  readonly evictUnusedAfterMs?: number;
  /** Most other entries kept. Default 10 000. */
  readonly maxEntries?: number;
  /** What entries' lifetimes are judged by; default the system's (lifetimes on its monotonic timer). */
  readonly clock?: Clock;
}

/** The adapter factory, and whether one more client can register. */
export interface ProviderStore extends AdapterFactory {
  /** True when one more client fits, after dropping the least recently used one unused long enough if the store is full. */
  roomForClient(): boolean;
}

/** A registration reached a full store (roomForClient was not asked, or the store filled meanwhile). */
export class ClientStoreFullError extends Error {
  override readonly name = 'ClientStoreFullError';
}

/** The clients file could not be read as one this platform wrote. */
export class ClientsFileError extends Error {
  override readonly name = 'ClientsFileError';
}

const fileVersion = 1;

/** Models whose entries belong to a grant, and go when the grant is revoked. */
const grantable = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

function readClients(file: string): Map<string, AdapterPayload> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw new ClientsFileError(`${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
  const refuse = (why: string) =>
    new ClientsFileError(`${file} is not a clients file written by this platform (${why}); remove it to start with no registered clients`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refuse('not JSON');
  }
  const { version, clients } = (parsed ?? {}) as { version?: unknown; clients?: unknown };
  if (version !== fileVersion) throw refuse(`version ${JSON.stringify(version)}, expected ${fileVersion}`);
  if (!Array.isArray(clients)) throw refuse('no clients list');
  const kept = new Map<string, AdapterPayload>();
  for (const client of clients as unknown[]) {
    const id = (client as { client_id?: unknown } | null)?.client_id;
    if (typeof id !== 'string' || id === '') throw refuse('a client without a client_id');
    kept.set(id, client as AdapterPayload);
  }
  return kept;
}

/** Writes the whole list to a file beside `file`, then renames it over: a crash leaves the old list or the new one. */
function writeClients(file: string, clients: ReadonlyMap<string, AdapterPayload>): void {
  const partial = `${file}.${randomUUID()}.tmp`;
  // Confidential clients' secrets are in it: readable by this user alone.
  writeFileSync(partial, `${JSON.stringify({ version: fileVersion, clients: [...clients.values()] })}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

export function createProviderStore(options: ProviderStoreOptions = {}): ProviderStore {
  const { clientsFile, maxClients = 1000, maxEntries = 10_000, evictUnusedAfterMs = 7 * 24 * 3600 * 1000 } = options;
  const clock = options.clock ?? systemClock;
  const clients = clientsFile ? readClients(clientsFile) : new Map<string, AdapterPayload>();
  /** When each client was last registered or looked up (an authorization, a token): in memory, from the start of this process. */
  const lastUsed = new Map<string, number>([...clients.keys()].map((id) => [id, clock()]));
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

  const saveClients = () => {
    if (clientsFile) writeClients(clientsFile, clients);
  };

  /** Drops the least recently used client unused for evictUnusedAfterMs; false when none is. */
  const dropLongUnused = (): boolean => {
    let oldest: [string, number] | undefined;
    for (const entry of lastUsed) if (oldest === undefined || entry[1] < oldest[1]) oldest = entry;
    if (oldest === undefined || clock() - oldest[1] < evictUnusedAfterMs) return false;
    clients.delete(oldest[0]);
    lastUsed.delete(oldest[0]);
    return true;
  };

  const roomForClient = (): boolean => clients.size < maxClients || (dropLongUnused() && (saveClients(), true));

  const clientAdapter: Adapter = {
    upsert(id, payload) {
      if (!clients.has(id) && !roomForClient()) return Promise.reject(new ClientStoreFullError(`the store holds ${maxClients} clients, all in use`));
      clients.set(id, payload);
      lastUsed.set(id, clock());
      saveClients();
      return Promise.resolve();
    },
    find(id) {
      const found = clients.get(id);
      if (found) lastUsed.set(id, clock());
      return Promise.resolve(found);
    },
    findByUid: () => Promise.resolve(undefined),
    findByUserCode: () => Promise.resolve(undefined),
    consume: () => Promise.resolve(),
    destroy(id) {
      lastUsed.delete(id);
      if (clients.delete(id)) saveClients();
      return Promise.resolve();
    },
    revokeByGrantId: () => Promise.resolve(),
  };

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
  return Object.assign(factory, { roomForClient });
}
