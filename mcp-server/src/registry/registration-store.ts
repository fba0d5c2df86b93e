// Where the live registrations are kept: in the gateway's memory (one process), or in PostgreSQL,
// shared by every replica of the gateway. A store keeps the rows and judges their expiry by its own
// time; each replica's catalog is built from what the store holds (registrations.ts). Every change
// that needs room is made atomically with its room check, so replicas racing for the last places
// cannot pass a limit together.
import type { Tool__Output } from '@platform/proto';
import type { RoomRules } from './registration-room.ts';

/** One live registration as a store keeps it. */
export interface StoredRegistration {
  readonly registrationId: string;
  readonly serviceName: string;
  readonly appClientId: string;
  readonly appKey: string;
  /** Resolved (callback-address.ts). */
  readonly callbackAddress: string;
  readonly grantedTtlSeconds: number;
  /**
   * Since when the service (its app and service name) has been registered without a gap, epoch ms
   * by the store's time: set when it registers, kept when it replaces its own live registration (a
   * restart). Of one app's services offering one tool name, the earliest keeps it (exposed-names.ts).
   */
  readonly since: number;
  /** What its tools take of the catalog (catalog-limits.ts). */
  readonly bytes: number;
  /** The app's token from its latest Register or Heartbeat: the actor token of its token exchanges. */
  readonly token: string;
}

/** A stored registration and how long it has left, by the store's time, when it was read. */
export interface LiveRegistration extends StoredRegistration {
  readonly expiresInMs: number;
}

/** What a Register asks the store to keep: the registration (its `since` is the store's to set), and the tools its service listed. */
export interface NewRegistration extends Omit<StoredRegistration, 'since'> {
  readonly tools: readonly Tool__Output[];
}

export interface RegistrationStore {
  /** Every registration not yet expired, in no particular order. */
  live(): Promise<LiveRegistration[]>;
  /** The tools listed at registration, of those of `registrationIds` still stored. */
  toolsOf(registrationIds: readonly string[]): Promise<Map<string, readonly Tool__Output[]>>;
  /** The live registration with this id, or undefined (unknown or expired). */
  find(registrationId: string): Promise<LiveRegistration | undefined>;
  /** Throws the room problem (registration-room.ts) when a registration of `bytes` would not fit now. */
  checkRoom(entrant: { readonly appClientId: string; readonly serviceName: string; readonly bytes: number }, rules: RoomRules): Promise<void>;
  /**
   * Keeps `registration` when it fits, in the same step as the check, replacing the same app's
   * registration of the same service; the id of the one replaced. Throws the room problem.
   */
  add(registration: NewRegistration, rules: RoomRules): Promise<{ readonly replaced: string | undefined }>;
  /** Gives a live registration its whole time to live again, from now, with the app's newest token; false when it is gone or expired. */
  renew(registrationId: string, token: string): Promise<boolean>;
  /** Drops a registration; false when it was not there. */
  remove(registrationId: string): Promise<boolean>;
  /** Drops every expired registration; those dropped, for the log. */
  expire(): Promise<StoredRegistration[]>;
  /**
   * Calls `listener` whenever the registrations may have changed elsewhere (another replica wrote,
   * or a lost connection to the others was made again and changes may have been missed). The
   * in-memory store has no elsewhere and never calls it. Resolves with the function that stops it.
   */
  watch(listener: () => void): Promise<() => Promise<void>>;
  /**
   * Drops what this process holds: the in-memory store forgets every registration, the shared one
   * only closes its connections (the registrations stay, for the other replicas).
   */
  close(): Promise<void>;
}
