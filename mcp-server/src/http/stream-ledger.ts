// Where a person's open streams and 2025-11-25 sessions are counted. One gateway counts its own in
// memory (stream-guard.ts, legacy-sessions.ts); replicas on PostgreSQL share a ledger
// (postgres-stream-ledger.ts), so that the per-person bounds hold across them: opening one more past
// a bound ends the person's oldest of that kind, on whichever replica it is.

/** What is counted: long-lived streams (MCP_MAX_STREAMS_PER_CALLER) or sessions (MCP_MAX_SESSIONS_PER_CALLER). */
export type LedgerKind = 'stream' | 'session';

export interface StreamLedger {
  /**
   * Records a stream as open; the person's oldest streams past `maxPerCaller` are taken out of the
   * ledger in the same step, and ended by the replica that holds them (told through watch).
   */
  opened(stream: { readonly id: string; readonly callerId: string; readonly kind: LedgerKind }, maxPerCaller: number): Promise<void>;
  /** Takes a stream out (it ended here). */
  closed(id: string): Promise<void>;
  /**
   * Follows the ledger: `end` is called with the ids of streams that must end (some may be held
   * elsewhere); `held` tells which this replica holds, to keep them in the ledger. Resolves with the function that stops it.
   */
  watch(held: () => readonly string[], end: (ids: readonly string[]) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
