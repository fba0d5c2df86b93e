// The clients registered through dynamic client registration (oidc-provider's Client adapter), in
// memory and, when a file is named, in that file too, with when each was registered and last used:
// an MCP client that registered once (mcp-remote, an agent desktop) signs in again after the
// platform restarts, and the store judges its clients after a restart as it did before.
// The store is bounded and cannot be flooded shut: a full store makes room by dropping the client
// unused for longest, where only a sign-in or a token counts as use (a registration or a look-up
// does not, so an anonymous flood of registrations protects none of its clients), and a client
// used recently enough is never dropped.
import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Clock } from '@platform/tool-sdk';

/** When a client was registered and used (milliseconds since the epoch). */
interface Usage {
  readonly registeredAt: number;
  /** The last sign-in or token; absent for a client never used. */
  readonly usedAt?: number;
  /** Until when the client is in use and may not be dropped. */
  readonly inUseUntil?: number;
}

export interface RegisteredClientsOptions {
  /** Where registered clients are kept across restarts; none keeps them in memory only. */
  readonly file?: string | undefined;
  /** Most registered clients kept. */
  readonly maxClients: number;
  /** How long a client stays in use after it signed someone in or got a token. */
  readonly inUseForMs: number;
  readonly clock: Clock;
}

export interface RegisteredClients {
  /** oidc-provider's adapter for the Client model; `resolve` answers for ids that were never registered. */
  adapter(resolve?: (id: string) => Promise<AdapterPayload | undefined>): Adapter;
  /** True when one more client fits, after dropping the client unused for longest if the store is full and one is not in use. */
  readonly roomForClient: () => boolean;
  /** Records a sign-in or token of a registered client: in use until `heldUntil` at least, and for inUseForMs from now. */
  readonly markUsed: (clientId: string, heldUntil: number) => void;
}

/** A registration reached a full store whose clients are all in use. */
export class ClientStoreFullError extends Error {
  override readonly name = 'ClientStoreFullError';
  readonly code = 'CLIENT_STORE_FULL';
}

/** The clients file could not be read as one this platform wrote. */
export class ClientsFileError extends Error {
  override readonly name = 'ClientsFileError';
  readonly code = 'CLIENTS_FILE_UNREADABLE';
}

const fileVersion = 1;

const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function readUsage(value: unknown): Usage | undefined {
  const { registeredAt, usedAt, inUseUntil } = (value ?? {}) as Record<string, unknown>;
  if (!isTime(registeredAt) || (usedAt !== undefined && !isTime(usedAt)) || (inUseUntil !== undefined && !isTime(inUseUntil))) return undefined;
  return { registeredAt, ...(usedAt !== undefined && { usedAt }), ...(inUseUntil !== undefined && { inUseUntil }) };
}

function readClients(file: string): { clients: Map<string, AdapterPayload>; usage: Map<string, Usage> } {
  const clients = new Map<string, AdapterPayload>();
  const usage = new Map<string, Usage>();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { clients, usage };
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
  const { version, clients: list, usage: usageById } = (parsed ?? {}) as { version?: unknown; clients?: unknown; usage?: unknown };
  if (version !== fileVersion) throw refuse(`version ${JSON.stringify(version)}, expected ${fileVersion}`);
  if (!Array.isArray(list)) throw refuse('no clients list');
  if (usageById !== undefined && (typeof usageById !== 'object' || usageById === null || Array.isArray(usageById))) throw refuse('usage is not an object');
  const recorded = (usageById ?? {}) as Record<string, unknown>;
  for (const client of list as unknown[]) {
    const id = (client as { client_id?: unknown } | null)?.client_id;
    if (typeof id !== 'string' || id === '') throw refuse('a client without a client_id');
    clients.set(id, client as AdapterPayload);
    const kept = Object.hasOwn(recorded, id) ? readUsage(recorded[id]) : undefined;
    if (Object.hasOwn(recorded, id) && kept === undefined) throw refuse(`the usage of ${id} is not as this platform writes it`);
    // A file from before usage was kept: its clients count as registered long ago and never used.
    usage.set(id, kept ?? { registeredAt: 0 });
  }
  return { clients, usage };
}

/** Writes the whole store to a file beside `file`, then renames it over: a crash leaves the old store or the new one. */
function writeClients(file: string, clients: ReadonlyMap<string, AdapterPayload>, usage: ReadonlyMap<string, Usage>): void {
  const partial = `${file}.${randomUUID()}.tmp`;
  const document = { version: fileVersion, clients: [...clients.values()], usage: Object.fromEntries(usage) };
  // Confidential clients' secrets are in it: readable by this user alone.
  writeFileSync(partial, `${JSON.stringify(document)}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

export function createRegisteredClients(options: RegisteredClientsOptions): RegisteredClients {
  const { file, maxClients, inUseForMs, clock } = options;
  const { clients, usage } = file ? readClients(file) : { clients: new Map<string, AdapterPayload>(), usage: new Map<string, Usage>() };
  const save = () => {
    if (file) writeClients(file, clients, usage);
  };

  /** Drops the client unused for longest among those not in use; false when every client is in use. */
  const dropLeastRecentlyUsed = (): boolean => {
    const now = clock();
    let oldest: [string, number] | undefined;
    for (const [id, { registeredAt, usedAt, inUseUntil = 0 }] of usage) {
      if (inUseUntil > now) continue;
      const lastActive = usedAt ?? registeredAt;
      if (oldest === undefined || lastActive < oldest[1]) oldest = [id, lastActive];
    }
    if (oldest === undefined) return false;
    clients.delete(oldest[0]);
    usage.delete(oldest[0]);
    return true;
  };

  const roomForClient = (): boolean => clients.size < maxClients || (dropLeastRecentlyUsed() && (save(), true));

  return {
    adapter: (resolve) => ({
      upsert(id, payload) {
        if (!clients.has(id) && !roomForClient()) return Promise.reject(new ClientStoreFullError(`the store holds ${maxClients} clients, all in use`));
        clients.set(id, payload);
        usage.set(id, usage.get(id) ?? { registeredAt: clock() });
        save();
        return Promise.resolve();
      },
      async find(id) {
        return clients.get(id) ?? (await resolve?.(id));
      },
      findByUid: () => Promise.resolve(undefined),
      findByUserCode: () => Promise.resolve(undefined),
      consume: () => Promise.resolve(),
      destroy(id) {
        usage.delete(id);
        if (clients.delete(id)) save();
        return Promise.resolve();
      },
      revokeByGrantId: () => Promise.resolve(),
    }),
    roomForClient,
    markUsed(clientId, heldUntil) {
      const known = usage.get(clientId);
      if (!known) return;
      const now = clock();
      usage.set(clientId, { registeredAt: known.registeredAt, usedAt: now, inUseUntil: Math.max(known.inUseUntil ?? 0, heldUntil, now + inUseForMs) });
      save();
    },
  };
}
